"""Command line entry point: ``python -m greenhouse <command>``.

Commands:
  tick       collect readings, decide, water (the cron job)
  beds       print every bed with its last reading
  calibrate  print the offset table of one probe
"""

import argparse
import sys

from greenhouse import irrigation, schedule, sensors, store, valves


def tick(dry_run=False):
    sensors.collect()
    for bed in schedule.beds_in_order():
        seconds = irrigation.decide(bed)
        if seconds <= 0:
            continue
        if dry_run:
            print(f"would open {bed.valve_id} for {seconds}s ({bed.name})")
        else:
            valves.pulse(bed.valve_id, seconds)


def list_beds():
    for bed in schedule.all_beds():
        row = irrigation.latest_climate(bed.id)
        where = f"{bed.house}/{bed.name}"
        if row is None:
            print(f"{where:<28} no readings yet")
        else:
            print(f"{where:<28} {row['celsius']:>5.1f} C  {row['moisture_pct']:>3d}%  {row['taken_at']:%H:%M}")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="greenhouse")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("tick")
    run.add_argument("--dry-run", action="store_true")
    sub.add_parser("beds")
    cal = sub.add_parser("calibrate")
    cal.add_argument("probe_id")
    args = parser.parse_args(argv)

    store.connect()
    if args.command == "tick":
        tick(args.dry_run)
    elif args.command == "beds":
        list_beds()
    else:
        print(sensors.offsets_for(args.probe_id))
    return 0


if __name__ == "__main__":
    sys.exit(main())
