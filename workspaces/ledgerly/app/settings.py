"""Load settings for the current environment.

The environment name comes from the ``LEDGERLY_ENV`` variable and selects a
section of ``config/database.toml``. Mail settings come from variables of
their own so they can differ between machines.
"""

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

CONFIG_DIR = Path(__file__).resolve().parent.parent / "config"
DEFAULT_ENV = "staging"


@dataclass(frozen=True)
class Settings:
    env: str
    database: dict
    smtp_host: str
    smtp_port: int
    sender_name: str
    sender_address: str
    payment_terms_days: int = 30


def load_settings(env=None):
    env = env or os.environ.get("LEDGERLY_ENV", DEFAULT_ENV)
    with open(CONFIG_DIR / "database.toml", "rb") as fh:
        sections = tomllib.load(fh)
    if env not in sections:
        known = ", ".join(sorted(sections))
        raise KeyError(f"unknown environment {env!r}; expected one of {known}")
    return Settings(
        env=env,
        database=sections[env],
        smtp_host=os.environ.get("LEDGERLY_SMTP_HOST", "localhost"),
        smtp_port=int(os.environ.get("LEDGERLY_SMTP_PORT", "25")),
        sender_name=os.environ.get("LEDGERLY_SENDER", "Ledgerly"),
        sender_address=os.environ.get(
            "LEDGERLY_SENDER_ADDRESS", "billing@ledgerly.example"
        ),
        payment_terms_days=int(os.environ.get("LEDGERLY_TERMS_DAYS", "30")),
    )
