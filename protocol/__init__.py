"""foxgeese.protocol"""
