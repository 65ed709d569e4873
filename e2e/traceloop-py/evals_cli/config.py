"""Connection settings, as evals-cli reads and saves them.

Modelled on traceloop/tenant-evals-integration src/evals_cli/config.py:
EVALS_API_BASE_URL (default http://localhost:8080) and EVALS_API_AUTH_TOKEN,
else the file ~/.evals-cli/config that "configure" writes; every request
carries "Authorization: Bearer <token>" (a token without the Bearer prefix
gets it) and "Content-Type: application/json".
"""

import os
from pathlib import Path


def config_file():
    return Path.home() / ".evals-cli" / "config"


def get_config():
    config = {
        "base_url": os.environ.get("EVALS_API_BASE_URL", "http://localhost:8080"),
        "auth_token": os.environ.get("EVALS_API_AUTH_TOKEN", ""),
    }
    path = config_file()
    if path.exists() and not config["auth_token"]:
        for line in path.read_text().splitlines():
            if "=" in line:
                key, value = line.strip().split("=", 1)
                if key == "base_url" and not os.environ.get("EVALS_API_BASE_URL"):
                    config["base_url"] = value
                elif key == "auth_token":
                    config["auth_token"] = value
    return config


def save_config(base_url, auth_token):
    path = config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("base_url=%s\nauth_token=%s\n" % (base_url, auth_token))


def get_headers(auth_token):
    if not auth_token.startswith("Bearer "):
        auth_token = "Bearer " + auth_token
    return {"Authorization": auth_token, "Content-Type": "application/json"}
