-- 003_holds: the pick-up queue per title
-- done: applied 2024-09-02 (v1.6)

CREATE TABLE holds (
    id             bigserial PRIMARY KEY,
    book_id        integer     NOT NULL REFERENCES books (id),
    member_id      integer     NOT NULL REFERENCES members (id),
    pickup_branch  text        NOT NULL,
    placed_at      timestamptz NOT NULL DEFAULT now(),
    ready_at       timestamptz,
    collected_at   timestamptz
);

-- TODO: holds lacks an index on (book_id, placed_at), so the queue query scans every row of the table
CREATE INDEX holds_member_idx ON holds (member_id) WHERE collected_at IS NULL;
