-- 001_catalogue: titles and the physical copies of each
-- done: applied 2024-05-11 (v1.0)

CREATE TABLE books (
    id         serial PRIMARY KEY,
    title      text NOT NULL,
    author     text NOT NULL DEFAULT '',
    isbn       char(13),
    published  smallint,
    search     tsvector GENERATED ALWAYS AS (to_tsvector('german', title || ' ' || author)) STORED
);

CREATE INDEX books_search_idx ON books USING gin (search);
CREATE UNIQUE INDEX books_isbn_key ON books (isbn) WHERE isbn IS NOT NULL;

CREATE TABLE items (
    id       serial PRIMARY KEY,
    book_id  integer NOT NULL REFERENCES books (id),
    barcode  text    NOT NULL UNIQUE,
    kind     text    NOT NULL DEFAULT 'book' CHECK (kind IN ('book', 'dvd', 'magazine', 'short-loan')),
    branch   text    NOT NULL,
    status   text    NOT NULL DEFAULT 'on_shelf'
);
