"""`python -m foxgeese`: a built-in bot in the form a referee launches it starts without the click
command line (protocol/bot_start.py); everything else goes to the full command line. Only a `bot`
command line loads the bot start (ZeroMQ, msgpack, the player registry): the others do not pay for it."""

import sys

if sys.argv[1:2] == ["bot"]:
    from foxgeese.protocol.bot_start import run_launched_bot

    status = run_launched_bot(sys.argv[1:])
    if status is not None:
        sys.exit(status)
from foxgeese.main import main  # noqa: E402 - only when the command is not a launched bot: click costs its start-up

main()
