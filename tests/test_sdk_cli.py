"""`foxgeese bot NAME`: user errors are one line on stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def run_bot_cli(*args: str, env_endpoint: str | None = "ipc:///nonexistent/x.sock") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("FOXGEESE_ENDPOINT", "FOXGEESE_TOKEN")}
    if env_endpoint:
        env["FOXGEESE_ENDPOINT"] = env_endpoint
    return subprocess.run([sys.executable, "-m", "foxgeese", "bot", *args], capture_output=True, text=True,
                          timeout=60, env=env, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize(
    "args, endpoint, message",
    [
        (["nosuch"], "ipc:///x", "foxgeese: unknown player 'nosuch'; valid: random"),
        (["random", "--option", "depth=3"], "ipc:///x", "foxgeese: unknown option 'depth' for random; valid: seed"),
        (["random", "--opt", "seed"], "ipc:///x", "'seed' is not key=value"),
        (["random"], None, "foxgeese: no referee endpoint: pass endpoint=... (--connect) or set FOXGEESE_ENDPOINT"),
    ],
)
def test_user_errors_are_one_line(args, endpoint, message):
    run = run_bot_cli(*args, env_endpoint=endpoint)
    assert run.returncode == 2
    assert message in run.stderr
    assert "Traceback" not in run.stderr



def test_a_bot_in_the_form_a_referee_launches_it_plays_without_the_click_command_line(tmp_path):
    import zmq

    from foxgeese import __version__
    from foxgeese.protocol import codec

    endpoint = f"ipc://{tmp_path}/ref.sock"
    with zmq.Context() as context, context.socket(zmq.ROUTER) as router:
        router.setsockopt(zmq.LINGER, 0)
        router.bind(endpoint)
        env = {**os.environ, "FOXGEESE_ENDPOINT": endpoint, "FOXGEESE_TOKEN": "tok"}
        bot = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "foxgeese", "bot", "random", "--option",
                                "seed=3"], env=env, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            assert router.poll(30_000), "the bot sent no hello"
            identity, payload = router.recv_multipart()
            hello = codec.decode(payload)
            assert (hello["name"], hello["author"], hello["version"], hello["token"]) == (
                "random:seed=3", "foxgeese", __version__, "tok")
            router.send_multipart([identity, codec.encode(codec.QUIT)])
            _, imports = bot.communicate(timeout=30)
        finally:
            bot.kill()
            bot.wait()
    assert bot.returncode == 0
    loaded = {line.rsplit("|", 1)[-1].strip() for line in imports.splitlines() if line.startswith("import time:")}
    assert "foxgeese.protocol.sdk" in loaded and "click" not in loaded and "foxgeese.main" not in loaded
