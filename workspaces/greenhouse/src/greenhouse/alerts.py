"""Notices for the growers: frost risk and hardware trouble.

Messages go out as SMS through the nursery's gateway account. They are
deliberately short; the status page has the detail.
"""

import urllib.parse
import urllib.request

SMS_GATEWAY = "https://sms.fernhill.lan/send"
FROST_LIMIT_C = 3.0

# TODO: frost warnings go to one hardwired phone number; move it into settings
ON_CALL = "+44 7700 900123"


def send(text, to=ON_CALL):
    body = urllib.parse.urlencode({"to": to, "text": text[:160]}).encode("ascii")
    with urllib.request.urlopen(SMS_GATEWAY, data=body, timeout=5) as resp:
        return resp.status == 200


def frost_check(house, celsius):
    if celsius <= FROST_LIMIT_C:
        return send(f"Frost risk in the {house} house: {celsius:.1f} C. Heaters on?")
    return False


def valve_stuck(valve_id, minutes):
    return send(f"Valve {valve_id} has not shut after {minutes} min. Check the relay board.")
