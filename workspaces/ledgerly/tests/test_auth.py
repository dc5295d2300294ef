"""Tests for app.auth against a small in-memory stand-in for app.db."""

from datetime import datetime, timedelta, timezone

import pytest

from app import auth


class FakeDB:
    def __init__(self, users):
        self.users = users
        self.sessions = {}

    def query(self, sql, params):
        return list(self.users)

    def query_one(self, sql, params):
        return self.sessions.get(params[0])

    def insert(self, table, **values):
        self.sessions[values["token"]] = values
        return len(self.sessions)


@pytest.fixture
def fake_db(monkeypatch):
    users = [{
        "id": 1,
        "email": "ana@example.com",
        "password_hash": auth.hash_password("correct horse"),
    }]
    db = FakeDB(users)
    for name in ("query", "query_one", "insert"):
        monkeypatch.setattr(auth.db, name, getattr(db, name))
    return db


def test_login_with_right_password_returns_token(fake_db):
    token = auth.login("ana@example.com", "correct horse")
    assert token in fake_db.sessions


def test_login_with_wrong_password_returns_none(fake_db):
    assert auth.login("ana@example.com", "battery staple") is None


def test_unknown_address_returns_none(fake_db):
    assert auth.login("bob@example.com", "correct horse") is None


def test_surrounding_spaces_are_ignored(fake_db):
    assert auth.login("  ana@example.com ", "correct horse") is not None


def test_expired_session_is_rejected(fake_db):
    past = datetime.now(timezone.utc) - timedelta(minutes=1)
    fake_db.sessions["old"] = {"user_id": 1, "expires_at": past}
    assert auth.user_for_token("old") is None
