// The boltzlab CLI of this checkout, for specs that compare the page with it: built once with
// make test's profile (Cargo.toml, release-tests; `make e2e` builds it before the specs run, so
// this is a no-op there).
import { execFileSync } from 'node:child_process';

export const CLI = 'target/release-tests/boltzlab';

let built = false;

/** Builds the CLI if needed and returns its path. */
export function cliPath() {
  if (!built) {
    execFileSync('cargo', ['build', '--profile', 'release-tests', '--quiet', '--bin', 'boltzlab'], {
      stdio: 'inherit',
    });
    built = true;
  }
  return CLI;
}
