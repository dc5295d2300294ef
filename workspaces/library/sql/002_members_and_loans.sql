-- 002_members_and_loans: library cards, lending history and fines
-- done: applied 2024-05-11 (v1.0)

CREATE TABLE members (
    id           serial PRIMARY KEY,
    card_number  text    NOT NULL UNIQUE,
    name         text    NOT NULL,
    email        text,
    home_branch  text    NOT NULL,
    child_card   boolean NOT NULL DEFAULT false,
    blocked      boolean NOT NULL DEFAULT false,
    joined_on    date    NOT NULL DEFAULT current_date
);

CREATE TABLE loan_records (
    id           bigserial PRIMARY KEY,
    item_id      integer     NOT NULL REFERENCES items (id),
    member_id    integer     NOT NULL REFERENCES members (id),
    branch       text        NOT NULL,
    lent_at      timestamptz NOT NULL DEFAULT now(),
    due_at       timestamptz NOT NULL,
    returned_at  timestamptz,
    renewals     smallint    NOT NULL DEFAULT 0
);

CREATE INDEX loan_records_open_idx ON loan_records (branch, due_at) WHERE returned_at IS NULL;

CREATE TABLE fines (
    id         bigserial PRIMARY KEY,
    loan_id    bigint  NOT NULL REFERENCES loan_records (id),
    member_id  integer NOT NULL REFERENCES members (id),
    cents      integer NOT NULL CHECK (cents > 0),
    paid_at    timestamptz
);
