"""foxgeese.tournaments"""
