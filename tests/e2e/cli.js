// The boltzlab CLI of this checkout, for specs that compare the page with it: built once with
// make test's profile (Cargo.toml, release-tests; a no-op when it is up to date).
import { execFileSync } from 'node:child_process';

export const CLI = 'target/release-tests/boltzlab';

let built = false;

/** Builds the CLI if needed and returns its path. */
export function cli() {
  if (!built) {
    execFileSync('cargo', ['build', '--profile', 'release-tests', '--quiet', '--bin', 'boltzlab'], {
      stdio: 'inherit',
    });
    built = true;
  }
  return CLI;
}
