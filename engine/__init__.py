"""foxgeese.engine"""
