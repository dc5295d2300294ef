"""Greenhouse: irrigation scheduling for the Fernhill glass houses.

The package is organised around one loop, the *tick*, which runs every five
minutes from cron (see ops/crontab):

1. ``sensors.collect()`` pulls the newest payload from every probe and stores
   one row per probe in ``sensor_readings``.
2. ``schedule.beds_in_order()`` lists the beds whose pump window is open.
3. ``irrigation.decide(bed)`` says whether a bed needs water and for how long.
4. ``valves.pulse(valve_id, seconds)`` opens the valve and logs the run.

Everything that talks to the database goes through ``store``.
"""

__version__ = "1.4.2"

HOUSES = ("east", "west", "propagation")
