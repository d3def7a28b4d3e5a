// The restricted machine learning real digits in the page: fantasy particles that move
// every frame, a test log-likelihood (exact, 16 hidden units) that rises, filters drawn,
// completion that keeps the clamped half and fills the other, and bad input answered with
// a message and no change.
import { test, expect, openApp } from './fixtures.js';

// Opens the machine mode and chooses the restricted machine.
async function openRestricted(page) {
  await openApp(page);
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await page.locator('#bm-kind-restricted').check();
  await expect(page.locator('#rbm')).toBeVisible();
  await expect(page.locator('#machine > .machine-grid')).toBeHidden();
  await expect.poll(() => page.evaluate(() => Boolean(window.boltzlabApp.machine.rbm.shown))).toBe(true);
}

// A reading of the page's restricted machine, from its worker (an RbmLab getter, or
// 'weights', 'curve', 'completion', 'session'), with typed arrays as lists.
function rbm(page, method, ...args) {
  return page.evaluate(
    async ([m, a]) => {
      const plain = (v) =>
        ArrayBuffer.isView(v)
          ? Array.from(/** @type {Float64Array} */ (v))
          : v && typeof v === 'object'
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
            : v;
      return plain(await window.boltzlabApp.machine.rbm.read(m, ...a));
    },
    [method, args],
  );
}

// The pixels of a canvas, as a list of numbers (RGBA).
function canvasPixels(page, id) {
  return page.evaluate((canvasId) => {
    const canvas = document.getElementById(canvasId);
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    return Array.from(data);
  }, id);
}

// The fantasy canvas (a hash of its pixels) and the update counter in successive frames, until
// `moved` frames have shown a new update count (or 600 frames have passed).
function fantasyFrames(page, moved) {
  return page.evaluate(
    (wanted) =>
      new Promise((resolve) => {
        const seen = [];
        let advanced = 0;
        const step = () => {
          const canvas = document.getElementById('rbm-fantasy');
          const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
          let hash = 0;
          for (let i = 0; i < data.length; i++) hash = (hash * 31 + data[i]) | 0;
          seen.push({ hash, updates: Number(document.getElementById('rbm-updates').textContent) });
          if (seen.length > 1 && seen.at(-1).updates !== seen.at(-2).updates) advanced += 1;
          if (advanced < wanted && seen.length < 600) requestAnimationFrame(step);
          else resolve(seen);
        };
        requestAnimationFrame(step);
      }),
    moved,
  );
}

test('digits learning draws moving fantasy particles, filters, and a rising test log-likelihood', async ({ page }) => {
  test.setTimeout(120_000);
  await openRestricted(page);
  expect(await rbm(page, 'dataset')).toBe('digits8');
  expect(await rbm(page, 'hidden')).toBe(16);
  expect(await rbm(page, 'likelihood_exact')).toBe(true);
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect(page.getByRole('button', { name: 'Pause learning' })).toBeVisible();
  // The fantasy particles move with every update: each frame that shows a new update count
  // shows other particles (the persistent chains take a Gibbs step per update). Counted over
  // frames with a new count, not over all frames: under load a frame often shows no update
  // (20 frames of 30 with new particles was asked before, and failed at 15 under load).
  const frames = await fantasyFrames(page, 20);
  const moved = frames.filter((f, k) => k > 0 && f.updates !== frames[k - 1].updates);
  expect(moved.length, JSON.stringify(frames)).toBe(20);
  const still = frames.filter((f, k) => k > 0 && f.updates !== frames[k - 1].updates && f.hash === frames[k - 1].hash);
  expect(still, JSON.stringify(frames)).toEqual([]);
  // The test log-likelihood: exact points every two epochs; it rises.
  await expect.poll(() => rbm(page, 'curve_len'), { timeout: 60_000 }).toBeGreaterThanOrEqual(4);
  const curve = await rbm(page, 'curve');
  expect(curve.stderr.every((e) => e === 0)).toBe(true);
  expect(curve.updates[0], 'the first point is the machine before learning').toBe(0);
  // The first point is the nearly independent-pixel start; learning lifts ln p(v) by more
  // than a nat per image within a few epochs (the points are printed for the record).
  const last = curve.test[curve.test.length - 1];
  console.log(
    `digits, 64-16 PCD: updates ${curve.updates.join(' ')}; test ln p(v) ${curve.test.map((x) => x.toFixed(2)).join(' ')}`,
  );
  expect(last, JSON.stringify(curve)).toBeGreaterThan(curve.test[0] + 1);
  await expect(page.locator('#rbm-test-ll')).not.toHaveText('–');
  await expect(page.locator('#rbm-ll-method')).toHaveText('exact');
  // Filters: 16 images of 8×8 in a grid of 10 columns (with one-pixel gaps).
  expect(await page.locator('#rbm-filters').evaluate((c) => [c.width, c.height])).toEqual([91, 19]);
  const filters = await canvasPixels(page, 'rbm-filters');
  expect(new Set(filters).size).toBeGreaterThan(10);
  await expect(page.locator('#rbm-speed')).not.toHaveText('–');
  console.log(`updates/s shown: ${await page.locator('#rbm-speed').textContent()}`);
});

test('completion keeps the clamped half of a test digit and fills the other half', async ({ page }) => {
  await openRestricted(page);
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => rbm(page, 'updates')).toBeGreaterThan(300);
  await page.getByRole('button', { name: 'Pause learning' }).click();
  for (const mask of ['top', 'left']) {
    await page.locator('#rbm-complete-image').fill('7');
    await page.locator('#rbm-complete-mask').selectOption(mask);
    await page.getByRole('button', { name: 'Complete' }).click();
    await expect.poll(() => rbm(page, 'completion_steps')).toBeGreaterThanOrEqual(200);
    const result = { ...(await rbm(page, 'completion')), test: await rbm(page, 'test_image', 7) };
    expect(result.original).toEqual(result.test);
    const clamped = [...Array(64).keys()].filter((i) => result.mask[i] === 1);
    const free = [...Array(64).keys()].filter((i) => result.mask[i] === 0);
    expect(clamped.length).toBe(32);
    expect(clamped.every((i) => (mask === 'top' ? i < 32 : i % 8 < 4))).toBe(true);
    for (const i of clamped) {
      expect(result.state[i]).toBe(result.original[i]);
      expect(result.mean[i]).toBe(result.original[i]);
    }
    // The free half is filled: probabilities strictly between 0 and 1, not all alike.
    expect(free.every((i) => result.mean[i] > 0 && result.mean[i] < 1)).toBe(true);
    expect(Math.max(...free.map((i) => result.mean[i])) - Math.min(...free.map((i) => result.mean[i]))).toBeGreaterThan(
      0.3,
    );
  }
  // original | clamped input | completion | the chain: 4 images side by side.
  expect(await page.locator('#rbm-completion').evaluate((c) => [c.width, c.height])).toEqual([37, 10]);
  // The phase switch: free, then clamped again (the clamped half is held again).
  await page.getByRole('button', { name: 'Release the clamps (free phase)' }).click();
  await expect(page.locator('#rbm-complete-phase')).toHaveText(/free/);
  expect(await rbm(page, 'completion_clamped')).toBe(false);
  await page.getByRole('button', { name: 'Clamp again' }).click();
  await expect(page.locator('#rbm-complete-phase')).toHaveText(/clamped/);
  await expect.poll(() => rbm(page, 'completion_steps')).toBeGreaterThan(5);
  const chain = await rbm(page, 'completion');
  const held = chain.mask.every((m, i) => !m || chain.state[i] === chain.original[i]);
  expect(held).toBe(true);
});

test('bad input gets a clear message and leaves the restricted machine unchanged', async ({ page }) => {
  await openRestricted(page);
  const current = async () => ({
    hidden: await rbm(page, 'hidden'),
    statistics: await rbm(page, 'statistics'),
    updates: await rbm(page, 'updates'),
    shown: await rbm(page, 'shown'),
  });
  const before = await current();
  const apply = async (id, value, message) => {
    const box = page.locator(`#${id}`);
    const old = await box.inputValue();
    await box.fill(value);
    await page.getByRole('button', { name: 'Apply options' }).click();
    await expect(page.locator('#rbm-training-error')).toBeVisible();
    await expect(page.locator('#rbm-training-error')).toContainText(message);
    expect(await current()).toEqual(before);
    await box.fill(old);
  };
  await apply('rbm-particles', '0', 'Particles must be between 1 and 10000');
  await apply('rbm-particles', '1e9', 'Particles must be between 1 and 10000');
  await apply('rbm-batch', '0', 'Batch must be between 1 and 1500');
  await apply('rbm-batch', '99999', 'Batch must be between 1 and 1500');
  await apply('rbm-rate', '-1', 'Learning rate must be above 0 and at most 100');
  await apply('rbm-rate', '1e400', 'Learning rate must be a finite number');
  // A rate of 0: "above 0", not the smallest double's 300 digits, and the page keeps its width.
  await apply('rbm-rate', '0', 'Learning rate must be above 0 and at most 100, got 0');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
  // Only the boxes the statistics use can be edited: CD-k has no particles, and only
  // tempering has replicas.
  const statistics = page.getByLabel('Free-phase statistics');
  await expect(page.locator('#rbm-replicas')).toBeDisabled();
  await statistics.selectOption('cd');
  await expect(page.locator('#rbm-particles')).toBeDisabled();
  await expect(page.locator('#rbm-replicas')).toBeDisabled();
  // Greyed, with the reason written beside them (a title alone reaches no touch screen).
  await expect(page.locator('#rbm-unused')).toHaveText(
    'Particles: not used by CD-k, whose chains start from the batch. Replicas: only parallel tempering has replicas.',
  );
  expect(Number(await page.locator('#rbm-particles').evaluate((e) => getComputedStyle(e).opacity))).toBeLessThan(1);
  await statistics.selectOption('tempering');
  await expect(page.locator('#rbm-particles')).toBeEnabled();
  await apply('rbm-replicas', '1', 'Replicas must be between 2 and 64');
  await statistics.selectOption('persistent');
  await page.getByRole('button', { name: 'Apply options' }).click();
  await expect(page.locator('#rbm-training-error')).toBeHidden();
  // Hidden units: zero or huge.
  const create = async (hidden, message) => {
    await page.locator('#rbm-hidden').fill(hidden);
    await page.getByRole('button', { name: 'New machine' }).click();
    await expect(page.locator('#rbm-setup-error')).toContainText(message);
    expect(await current()).toEqual(before);
  };
  await create('0', 'Hidden units must be between 1 and 500');
  await create('100000', 'Hidden units must be between 1 and 500');
  // Too many units for the exact log-likelihood: AIS, said so.
  await page.locator('#rbm-hidden').fill('30');
  await page.getByRole('button', { name: 'New machine' }).click();
  await expect(page.locator('#rbm-setup-error')).toBeHidden();
  await expect(page.locator('#rbm-setup-done')).toContainText('by AIS');
  await expect(page.locator('#rbm-ll-method')).toHaveText('AIS');
  expect(await rbm(page, 'likelihood_exact')).toBe(false);
  const ais = await current();
  // A malformed dataset: text with a stray character; a damaged digits file.
  await page
    .locator('#rbm-file')
    .setInputFiles({ name: 'bad.txt', mimeType: 'text/plain', buffer: Buffer.from('0110\n01x0\n') });
  await expect(page.locator('#rbm-dataset')).toHaveValue('file');
  await page.getByRole('button', { name: 'New machine' }).click();
  await expect(page.locator('#rbm-setup-error')).toContainText('Dataset:');
  await expect(page.locator('#rbm-setup-error')).toContainText('"x" is not 0 or 1');
  expect(await current()).toEqual(ais);
  const damaged = Buffer.concat([Buffer.from('DIGITS8'), Buffer.alloc(40, 1)]);
  await page
    .locator('#rbm-file')
    .setInputFiles({ name: 'bad.bin', mimeType: 'application/octet-stream', buffer: damaged });
  await page.getByRole('button', { name: 'New machine' }).click();
  await expect(page.locator('#rbm-setup-error')).toContainText('not a valid digits file');
  expect(await current()).toEqual(ais);
  // Completion: a test image out of range; an empty painted mask.
  await page.locator('#rbm-complete-image').fill('297');
  await page.getByRole('button', { name: 'Complete' }).click();
  await expect(page.locator('#rbm-complete-error')).toContainText('Test image must be between 0 and 296');
  await page.locator('#rbm-complete-image').fill('0');
  await page.getByRole('button', { name: 'Clear painting' }).click();
  await page.getByRole('button', { name: 'Complete' }).click();
  await expect(page.locator('#rbm-complete-error')).toContainText('paint some pixels to clamp');
  expect(await rbm(page, 'completion_image')).toBe(-1);
  // The general machine is still there, untouched, when chosen again.
  await page.locator('#bm-kind-full').check();
  await expect(page.locator('#bm-run')).toBeVisible();
  await expect(page.locator('#rbm')).toBeHidden();
});

// The worker computes the particles' p(v | h) only while the page draws them so. Chosen after 40
// updates learned as states, the grid turns from states (ink, paper and the gaps: at most 3
// colours) into the means of the particles as they are now: the picture a run drawn as means
// all along shows after the same 40 updates of the same seed. And back to states.
test('particles drawn as p(v | h) when chosen are those of the particles now, and states again after', async ({
  page,
}) => {
  test.setTimeout(60_000);
  await openRestricted(page);
  const colours = async () =>
    new Set(new Uint32Array(new Uint8Array(await canvasPixels(page, 'rbm-fantasy')).buffer)).size;
  const hash = async () => (await canvasPixels(page, 'rbm-fantasy')).reduce((h, x) => (h * 31 + x) | 0, 0);
  const advance40 = async () => {
    await page.evaluate(() => window.boltzlabApp.machine.rbm.send({ command: 'advance', updates: 40 }));
    await expect.poll(() => page.locator('#rbm-updates').textContent()).toBe('40');
  };
  await advance40();
  expect(await colours()).toBeLessThanOrEqual(3);
  await page.locator('#rbm-fantasy-show').selectOption('means');
  await expect.poll(colours).toBeGreaterThan(10);
  const chosenLate = await hash();
  // A new run of the same seed, drawn as means from its start.
  await page.locator('#rbm-create').click();
  await expect(page.locator('#rbm-updates')).toHaveText('0');
  await advance40();
  await expect.poll(hash).toBe(chosenLate);
  await page.locator('#rbm-fantasy-show').selectOption('states');
  await expect.poll(colours).toBeLessThanOrEqual(3);
});

test('an MNIST run offers no tempering: the choice is disabled while MNIST is chosen, and back for the small images', async ({
  page,
}) => {
  await openRestricted(page);
  const tempering = page.locator('#rbm-statistics option[value="tempering"]');
  await expect(tempering).toBeEnabled();
  await page.getByLabel('Image set').selectOption('mnist'); // fills MNIST's defaults; loads nothing yet
  await expect(tempering).toBeDisabled();
  await expect(page.locator('#rbm-replicas')).toBeDisabled();
  await page.getByLabel('Image set').selectOption('digits8');
  await expect(tempering).toBeEnabled();
});
