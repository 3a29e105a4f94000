"""Test-wide fixtures (house style §9).

Every test runs with ``HOME``, config and data dirs inside a temporary folder
(so no user ``.env``, recycle bin or config is touched), no LLM variables inherited from the
developer's shell, and a socket guard that refuses any connection that is not to
loopback.
"""

from __future__ import annotations

import ipaddress
import os
import socket

import pytest

_LLM_VARS = ("LLM_API_URL", "LLM_API_KEY", "INTENT_MODEL_NAME", "GENERATION_MODEL_NAME",
             "LOCALAGENT_WORKSPACE", "LOCALAGENT_LANG", "OPENAI_API_KEY", "OPENAI_BASE_URL")


def _is_loopback(address: object) -> bool:
    if isinstance(address, tuple) and address:
        host = str(address[0])
    else:  # AF_UNIX paths and the like are local by nature
        return True
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def _point_recycle_bin_at(data, monkeypatch) -> None:
    """send2trash reads XDG_DATA_HOME once, at import: point its copies at the test's home too."""
    try:
        import send2trash.plat_other as plat
    except ImportError:  # Windows/macOS back ends keep no import-time copies
        return
    monkeypatch.setattr(plat, "XDG_DATA_HOME", os.fsencode(data), raising=False)
    monkeypatch.setattr(plat, "HOMETRASH_B", os.fsencode(data / "Trash"), raising=False)
    monkeypatch.setattr(plat, "HOMETRASH", str(data / "Trash"), raising=False)


@pytest.fixture(autouse=True)
def _isolated_environment(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("home")
    data = home / ".local" / "share"
    data.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    _point_recycle_bin_at(data, monkeypatch)
    for var in _LLM_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))

    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def guarded_connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address):
            raise ConnectionRefusedError(f"tests refuse non-loopback connections: {address!r}")
        return real_connect(self, address)

    def guarded_connect_ex(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address):
            raise ConnectionRefusedError(f"tests refuse non-loopback connections: {address!r}")
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    yield
