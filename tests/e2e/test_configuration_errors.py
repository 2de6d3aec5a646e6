"""A missing setting is a 400 at start that names it, not a run that fails later (issue 19).

A sign-in setup that would trust anyone (``AUTH_MODE=easyauth`` with no Easy
Auth in front, issue 27) keeps devhost from starting at all.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from shared.core.config import Settings
from shared.core.errors import ConfigurationError
from tests.fakes.entra import easy_auth_headers

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.e2e


def test_a_provider_without_its_key_is_refused_at_start(start_devhost, data_dir) -> None:
    host = start_devhost(Settings(data_dir=data_dir, reasoner="offline", search_provider="brave"))
    with httpx.Client(base_url=host.url, timeout=30) as api:
        refused = api.post(
            "/api/research",
            json={"query": "What is a generator?", "mode": "search", "chat_id": "c-config"},
        )
        listed = api.get("/api/chats/c-config/sessions")
        chat = api.post(
            "/api/research", json={"query": "hi", "mode": "chat", "chat_id": "c-config"}
        )

    assert refused.status_code == 400, refused.text
    error = refused.json()["error"]
    assert error["code"] == "configuration_error" and "BRAVE_API_KEY" in error["message"]
    assert listed.status_code == 200 and listed.json()["sessions"] == []  # nothing was created
    assert chat.status_code in (200, 202), chat.text  # chat needs no search provider


def test_a_malformed_webhook_secret_is_refused_for_runs_with_a_callback(
    start_devhost, data_dir, webhook_receiver
) -> None:
    settings = Settings(
        data_dir=data_dir,
        reasoner="offline",
        search_provider="local",
        webhook_secret="an-old-plain-secret",  # not whsec_<base64>
        webhook_allowed_hosts="127.0.0.1",
    )
    host = start_devhost(settings)
    body = {"query": "What is a generator?", "mode": "chat", "callback_url": webhook_receiver.url}
    with httpx.Client(base_url=host.url, timeout=30) as api:
        refused = api.post("/api/research", json=body)
        without = api.post("/api/research", json={"query": "What is a generator?", "mode": "chat"})

    assert refused.status_code == 400, refused.text
    error = refused.json()["error"]
    assert error["code"] == "configuration_error" and "WEBHOOK_SECRET" in error["message"]
    assert without.status_code in (200, 202), without.text


def test_easyauth_without_easy_auth_in_front_refuses_to_start(start_devhost, data_dir) -> None:
    """Anyone could send X-MS-CLIENT-PRINCIPAL and be anyone: the host does not start."""
    settings = Settings(
        data_dir=data_dir, reasoner="offline", search_provider="local", auth_mode="easyauth"
    )

    with pytest.raises(ConfigurationError) as refused:
        start_devhost(settings)

    assert "WEBSITE_AUTH_ENABLED" in str(refused.value)
    assert "AUTH_TRUST_PRINCIPAL_HEADER=true" in str(refused.value)


def test_the_cli_says_why_in_one_line(tmp_path: Path) -> None:
    names = {name.upper() for name in Settings.model_fields}
    env = {k: v for k, v in os.environ.items() if k.upper() not in names}
    env.update(PYTHONPATH=str(ROOT), AUTH_MODE="easyauth", DATA_DIR=str(tmp_path / "data"))

    done = subprocess.run(
        [sys.executable, "-m", "devhost", "serve", "--port", "0"],
        cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip

    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "WEBSITE_AUTH_ENABLED" in lines[0], done.stderr


@pytest.mark.parametrize(
    "vouched", [{"website_auth_enabled": True}, {"auth_trust_principal_header": True}]
)
def test_easyauth_runs_once_the_platform_or_the_operator_vouches_for_the_header(
    start_devhost, data_dir, vouched: dict
) -> None:
    settings = Settings(
        data_dir=data_dir,
        reasoner="offline",
        search_provider="local",
        auth_mode="easyauth",
        **vouched,
    )
    host = start_devhost(settings)
    body = {"query": "What is a generator?", "mode": "chat", "chat_id": "c-vouched"}
    with httpx.Client(base_url=host.url, timeout=30) as api:
        signed_in = api.post("/api/research", json=body, headers=easy_auth_headers("a11ce"))
        anonymous = api.post("/api/research", json=body)

    assert signed_in.status_code in (200, 202), signed_in.text
    assert anonymous.status_code == 401, anonymous.text
