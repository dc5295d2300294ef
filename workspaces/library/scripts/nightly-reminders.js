// Mails every member whose open loans fall due in three days.
// Run from cron on app-1: `npm run reminders`.

const db = require('../server/lib/db');
const { forDisplay } = require('../server/lib/dates');
const { sendReminder } = require('../server/lib/mailer');

async function main() {
  const rows = await db.query(
    `SELECT m.id, m.name, m.email, l.due_at, i.title
     FROM loan_records l
     JOIN members m ON m.id = l.member_id
     JOIN items it ON it.id = l.item_id
     JOIN books i ON i.id = it.book_id
     WHERE l.returned_at IS NULL
       AND l.due_at::date = current_date + 3
     ORDER BY m.id`,
  );
  const byMember = new Map();
  for (const row of rows) {
    const entry = byMember.get(row.id) || { member: row, titles: [], due: forDisplay(row.due_at) };
    entry.titles.push(row.title);
    byMember.set(row.id, entry);
  }
  let sent = 0;
  for (const { member, titles, due } of byMember.values()) {
    if (await sendReminder(member, titles, due)) sent += 1;
  }
  console.log(`${new Date().toISOString()} reminders sent: ${sent} of ${byMember.size}`);
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
