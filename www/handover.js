// @ts-check
// The page the offline service worker (sw.js, handOver) answers a reload with when a waiting
// new build takes over: it loads the page again, whole, from the new build. location.reload()
// keeps the address's fragment (the state link) and reloads; a Refresh header or a meta
// refresh to the same address would be a jump within this empty page instead, and the page
// would stay blank.
location.reload();
