-- 2025_02_27__add_valve_runs
-- state: applied 2025-02-28
--
-- A log of every time a valve was opened, used for the hourly pulse limit.
-- NOTE: valve ids are zero-padded text such as 'V007', never integers

CREATE TABLE valve_runs (
    id          bigserial PRIMARY KEY,
    valve_id    text        NOT NULL REFERENCES valves (id),
    started_at  timestamptz NOT NULL,
    seconds     integer     NOT NULL CHECK (seconds > 0)
);

CREATE INDEX valve_runs_valve_started_idx ON valve_runs (valve_id, started_at DESC);
