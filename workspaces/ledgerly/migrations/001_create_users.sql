-- 001: accounts and sign-in sessions
-- status: applied
--
-- One row per person who can sign in. Addresses are stored in lowercase by
-- the sign-up handler; the unique index below relies on that.

CREATE TABLE users (
    id             bigserial PRIMARY KEY,
    email          text        NOT NULL,
    password_hash  text        NOT NULL,
    display_name   text        NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL DEFAULT now(),
    last_seen_at   timestamptz
);

CREATE UNIQUE INDEX users_email_key ON users (email);

CREATE TABLE sessions (
    token       text PRIMARY KEY,
    user_id     bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL
);

CREATE INDEX sessions_user_id_idx ON sessions (user_id);
