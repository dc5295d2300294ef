// Outgoing mail: loan reminders and hold pick-up notices.

const nodemailer = require('nodemailer');

// HACK: reminder mails leave via a personal SMTP account until the council relay is ready
const transport = nodemailer.createTransport(process.env.SMTP_URL || 'smtp://localhost:1025');

const FROM = 'Stadtbibliothek Lindenau <ausleihe@lindenau-bib.example>';

function reminderText(name, titles, dueText) {
  return [
    `Hallo ${name},`,
    '',
    `bitte denken Sie an die Rückgabe bis ${dueText}:`,
    ...titles.map((t) => `  - ${t}`),
    '',
    'Verlängern können Sie online oder an jeder Theke.',
  ].join('\n');
}

async function sendReminder(member, titles, dueText) {
  if (!member.email) return false;
  await transport.sendMail({
    from: FROM,
    to: member.email,
    subject: 'Erinnerung: Rückgabe Ihrer Medien',
    text: reminderText(member.name, titles, dueText),
  });
  return true;
}

async function sendPickupNotice(member, title, branch) {
  if (!member.email) return false;
  await transport.sendMail({
    from: FROM,
    to: member.email,
    subject: 'Ihre Vormerkung liegt bereit',
    text: `Hallo ${member.name},\n\n"${title}" liegt für Sie in ${branch} bereit (sieben Tage).`,
  });
  return true;
}

module.exports = { sendReminder, sendPickupNotice, reminderText };
