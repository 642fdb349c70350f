// The web app's entry module (index.html loads only this). Each page is one module that
// registers here; a new page is one import and one `register` line. The shell then checks
// the sign-in and shows the page the address names.

import { register } from './router.js';
import { boot } from './shell.js';
import signin from './pages/signin.js';
import chat from './pages/chat.js';
import approvals from './pages/approvals.js';
import memory from './pages/memory.js';
import status from './pages/status.js';
import settings from './pages/settings.js';

register(signin);
register(chat);
register(approvals);
register(memory);
register(status);
register(settings);

boot();
