// Shelfmark: app setup and route mounting.

const express = require('express');
const session = require('express-session');

const { requireStaff } = require('./middleware/session');
const books = require('./routes/books');
const loans = require('./routes/loans');
const members = require('./routes/members');
const holds = require('./routes/holds');

const app = express();
app.use(express.json());
app.use(express.urlencoded({ extended: false }));
app.use(session({
  secret: process.env.SESSION_SECRET,
  resave: false,
  saveUninitialized: false,
  cookie: { maxAge: 8 * 60 * 60 * 1000, sameSite: 'lax' },
}));

app.get('/health', (req, res) => res.json({ ok: true, version: require('../package.json').version }));

// The kiosks may search the catalogue and place holds without a staff login.
app.use('/api/books', books);
app.use('/api/holds', holds);

// Everything else is for the desk.
app.use('/api/loans', requireStaff, loans);
app.use('/api/members', requireStaff, members);

app.use((err, req, res, next) => {
  console.error(err);
  res.status(err.status || 500).json({ error: err.expose ? err.message : 'internal error' });
});

const port = Number(process.env.PORT || 3300);
if (require.main === module) {
  app.listen(port, () => console.log(`shelfmark listening on ${port}`));
}

module.exports = app;
