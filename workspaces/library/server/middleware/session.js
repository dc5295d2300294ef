// Staff session check for the desk routes.
//
// A staff member signs in on the desk page with their badge number and PIN;
// the session then carries { staffId, branch }. Kiosk routes do not use this.

function requireStaff(req, res, next) {
  if (req.session && req.session.staffId) {
    req.branch = req.session.branch;
    return next();
  }
  res.status(401).json({ error: 'sign in at the desk first' });
}

function requireBranch(branch) {
  return (req, res, next) => {
    if (req.branch === branch) return next();
    res.status(403).json({ error: `only staff of ${branch} can do this` });
  };
}

module.exports = { requireStaff, requireBranch };
