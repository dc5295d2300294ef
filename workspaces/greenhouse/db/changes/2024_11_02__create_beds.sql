-- 2024_11_02__create_beds
-- state: applied 2024-11-04
--
-- The growing beds, the valves that feed them and the probes that watch them.

CREATE TABLE beds (
    id                  serial PRIMARY KEY,
    house               text    NOT NULL CHECK (house IN ('east', 'west', 'propagation')),
    name                text    NOT NULL,
    crop                text    NOT NULL DEFAULT 'mixed',
    valve_id            text    NOT NULL,
    moisture_floor_pct  integer NOT NULL DEFAULT 35,
    window_start        integer NOT NULL DEFAULT 5,
    window_end          integer NOT NULL DEFAULT 21,
    planted_on          date,
    retired_at          timestamptz,
    UNIQUE (house, name)
);

CREATE TABLE valves (
    id       text    PRIMARY KEY,
    channel  integer NOT NULL UNIQUE CHECK (channel BETWEEN 1 AND 8),
    note     text    NOT NULL DEFAULT ''
);

CREATE TABLE probes (
    id        text    PRIMARY KEY,
    bed_id    integer NOT NULL REFERENCES beds (id),
    model     text    NOT NULL,
    offset_c  numeric(3, 1) NOT NULL DEFAULT 0,
    active    boolean NOT NULL DEFAULT true
);
