-- 003: store every account address in lowercase
-- status: pending
--
-- Some older accounts were created before the sign-up handler lowercased
-- addresses, so a few rows in the users table still hold mixed-case values.
-- This rewrites them all to lowercase so they match what the sign-in code
-- expects.
--
-- Before running it, check that no two accounts differ only by case; the
-- unique index on the email column would reject the rewrite if they do.
--
-- Once it has run, change the status line above to "applied".

UPDATE users SET email = lower(email);
