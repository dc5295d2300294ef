"""Shared fixtures: a fake store so no test needs a database."""

import pytest

from greenhouse import store


class FakeStore:
    def __init__(self):
        self.tables = {"sensor_readings": [], "valve_runs": [], "beds": [], "probes": []}

    def insert(self, table, **values):
        self.tables.setdefault(table, []).append(values)


@pytest.fixture
def fake_store(monkeypatch):
    fake = FakeStore()
    monkeypatch.setattr(store, "insert", fake.insert)
    monkeypatch.setattr(store, "query", lambda sql, params=(): [])
    monkeypatch.setattr(store, "query_one", lambda sql, params=(): None)
    return fake
