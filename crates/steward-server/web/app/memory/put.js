// `PUT` through the page's one API client (api.js has `get`/`post`/`patch`/`del`; a fact's
// edit is the one PUT the pages send).

import { call } from '../api.js';

export const put = (path, body, options = {}) => call('PUT', path, { ...options, body });
