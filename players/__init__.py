"""foxgeese.players"""
