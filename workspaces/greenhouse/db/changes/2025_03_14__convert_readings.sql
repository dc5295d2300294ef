-- 2025_03_14__convert_readings
-- state: not applied yet
--
-- Until release 1.4 the ingest code stored whatever number a probe sent. The
-- TH-20 probes in the east house report Fahrenheit, so the rows they produced
-- before the upgrade hold values such as 78.8 in the celsius column, and the
-- heat check reads every one of them as a heatwave.
--
-- Ingest converts on arrival now (src/greenhouse/sensors.py). This rewrites
-- the rows stored before that, and only those: they are the rows with
-- source_unit 'F' taken before the upgrade on 2025-03-10.
--
-- This change has not reached the live database yet. Check the row count it
-- reports against the count of TH-20 rows before the upgrade.
--
-- After it has run, set the state line to "applied" and the date.

UPDATE sensor_readings SET celsius = round((celsius - 32) * 5 / 9, 1) WHERE source_unit = 'F' AND taken_at < '2025-03-10';
