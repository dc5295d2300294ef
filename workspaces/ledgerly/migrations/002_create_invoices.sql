-- 002: customers, invoices and payments
-- status: applied
--
-- Money is numeric(12, 2) throughout. Invoice numbers look like 2024-0007
-- and are unique per owner.

CREATE TABLE customers (
    id             bigserial PRIMARY KEY,
    owner_id       bigint NOT NULL REFERENCES users (id),
    name           text   NOT NULL,
    billing_email  text,
    country        char(2) NOT NULL DEFAULT 'GB'
);

CREATE TABLE invoices (
    id           bigserial PRIMARY KEY,
    owner_id     bigint NOT NULL REFERENCES users (id),
    customer_id  bigint NOT NULL REFERENCES customers (id),
    number       text   NOT NULL DEFAULT '',
    status       text   NOT NULL DEFAULT 'draft',
    currency     char(3) NOT NULL DEFAULT 'GBP',
    issued_on    date,
    due_on       date,
    total        numeric(12, 2) NOT NULL DEFAULT 0,
    paid         numeric(12, 2) NOT NULL DEFAULT 0,
    lines        jsonb  NOT NULL DEFAULT '[]'
);

CREATE TABLE payments (
    id           bigserial PRIMARY KEY,
    invoice_id   bigint NOT NULL REFERENCES invoices (id),
    amount       numeric(12, 2) NOT NULL CHECK (amount > 0),
    method       text   NOT NULL DEFAULT 'bank_transfer',
    reference    text   NOT NULL DEFAULT '',
    received_at  timestamptz NOT NULL DEFAULT now()
);
