-- 2025_01_20__create_sensor_readings
-- state: applied 2025-01-21
--
-- One row per probe per tick. At five-minute ticks and about sixty probes this
-- grows by roughly 17,000 rows a day, so the index is on (bed_id, taken_at).

CREATE TABLE sensor_readings (
    id            bigserial PRIMARY KEY,
    probe_id      text          NOT NULL REFERENCES probes (id),
    bed_id        integer       NOT NULL REFERENCES beds (id),
    celsius       numeric(5, 1) NOT NULL,
    source_unit   char(1)       NOT NULL DEFAULT 'C',
    moisture_pct  integer       NOT NULL CHECK (moisture_pct BETWEEN 0 AND 100),
    taken_at      timestamptz   NOT NULL
);

CREATE INDEX sensor_readings_bed_taken_idx ON sensor_readings (bed_id, taken_at DESC);
