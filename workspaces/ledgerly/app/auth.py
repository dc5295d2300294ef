"""Sign-in and session tokens.

Passwords are PBKDF2 hashes in the ``users`` table.
A sign-in returns an opaque token stored in ``sessions``
for twelve hours.
"""

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta, timezone

from app import db

SESSION_LIFETIME = timedelta(hours=12)
HASH_ROUNDS = 260_000


def hash_password(password, salt=None):
    """Return ``salt$hexdigest`` for the given password."""
    salt = salt or secrets.token_hex(16)
    digest = hashlib.pbkdf2_hmac(
        "sha256", password.encode("utf-8"), salt.encode("ascii"), HASH_ROUNDS
    )
    return f"{salt}${digest.hex()}"


def check_password(password, stored):
    salt, _ = stored.split("$", 1)
    return hmac.compare_digest(hash_password(password, salt), stored)


def find_user(email):
    """Look up a user row by the address typed on the sign-in form."""
    email = email.strip()
    rows = db.query("SELECT id, email, password_hash FROM users", ())
    for row in rows:
        # Addresses are saved in lowercase when an account is created.
        stored = row["email"]
        if stored == email:  # FIXME: exact, case-sensitive email match, so an address typed with capital letters never equals the stored lowercase one
            return row
    return None


def login(email, password):
    """Return a new session token, or None if the credentials are wrong."""
    user = find_user(email)
    if user is None or not check_password(password, user["password_hash"]):
        return None
    token = secrets.token_urlsafe(32)
    expires = datetime.now(timezone.utc) + SESSION_LIFETIME
    db.insert("sessions", token=token, user_id=user["id"], expires_at=expires)
    return token


def user_for_token(token):
    row = db.query_one("SELECT * FROM sessions WHERE token = %s", (token,))
    if row is None or row["expires_at"] < datetime.now(timezone.utc):
        return None
    return row["user_id"]
