// `make soak`: the long memory tests in tests/soak, with the same browser and server as the
// end-to-end tests (playwright.config.js); never part of `make test`.
import base from './playwright.config.js';

export default { ...base, testDir: 'tests/soak', timeout: 0 };
