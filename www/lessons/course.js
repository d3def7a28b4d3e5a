// @ts-check
// The course: lessons made of steps. Each step declares its scene (scene.js applies it
// through the modes' scene interfaces, checked by the engine), short text with formulas in MathML and live
// numbers (<output data-live="energy">), speaker notes (the question to ask, the model's
// limits), and may ask for a prediction before it runs (predict) or set a challenge that
// completes when the engine's measured condition holds (challenge). Pure data and pure
// functions: tests import this file directly to check every step's scene.
//
// A scene: { mode: 'lattice' | 'machine', lattice: {model, size, temperature, field, rule,
// order, boundary} | machine: {dataset, method, rule, rate}, seed, start: 'random' | 'up' |
// 'down', picture: a named picture of down spins in an up lattice (lattice/pictures.js:
// 'disc', 'stripes', 'wall'), clamp: a training pattern (1-based) clamped on the machine's
// visible units, run, speed ({ticks: n} or {sweeps: n} per frame, or 'max', the whole frame
// budget), controls: [part…], highlight: part } where a part is a name in scene.js's PARTS.
// A pattern-memory scene: { mode: 'memory', memory: {width, height, rule, patterns: 'digits' |
// a count of random ones, state: {cue, flip, hide} | 'random', temperature}, speed: ticks per
// frame or 'max', capacity: {units, runs, starts} } (its interface: memory/scene.js); a
// prediction on it waits for `after: {recall: true}` (recall ran to a fixed point) or
// `after: {capacity: true}` (the capacity curve is complete). An MNIST scene: { mode:
// 'restricted', rbm: {dataset: 'mnist', hidden, labels, statistics, steps, batch, rate,
// momentum}, seed, run, every: updates between log-likelihood points, gallery: {count, steps,
// label}, pad: {test, mask, steps}, continue: go on with the MNIST run shown when it has the
// same options } (machine/scene.js applyMnist); a
// prediction on it waits for `after: {updates: n}` (the log-likelihood point of update n is in).
//
// What a step shows, declared beside its text (one line each, for every step):
//   views: ['spins', 'trace']  the views its text talks about, by the names in lecture.js's
//     VIEWS (a view missing there is one line to add). Lecture mode shows exactly these, in
//     tiles filling the screen beside the text (one to four read well), and each must show
//     something when the step opens: a view that needs data gets it from the scene (run: true,
//     or a state that already has it). Outside lecture mode they are outlined.
//   scene.controls: ['run', 'temperature']  the controls its text names (parts in scene.js's
//     PARTS): lecture mode puts exactly these under the text.
// tests/e2e/lecture.spec.js opens every step of every lesson in lecture mode at 1280×720 and
// 1920×1080 and checks that each declared view is on screen, at least 200 × 200 px, drawn,
// and clear of the text and of the other views.
//
// A prediction: { question, choices: [{label, range: [lo, hi]}], measure: {label, read(r),
// after: {sweeps | cycles}}, explain }: the step stays paused until a choice is committed,
// then runs, and after `after` more sweeps (or learning cycles) shows read(r) against the
// chosen range (an estimate's mean decides, its standard error is shown). A challenge:
// { goal, check(history), judges?: {label, read(r)} }: history is the list of read-outs
// (scene.js readouts(), sampled about 4 times a second while the step is open, newest
// last); the challenge completes the first time check returns true, and then shows what
// `judges` reads, with its error; `at: {label, read(r)}` names when it was met (e.g. the
// cycle), and `pause: mode` pauses that mode's run then.
//
// A read-out's numbers are quantities (quantities.js): exact ones {value, stderr: 0},
// estimates {mean, stderr}. A challenge on an estimate asks for it beyond doubt: "G below x"
// is met when mean + 2·stderr < x (below), "above x" when mean − 2·stderr > x (above); an
// exact value is simply compared. So a challenge on an AIS estimate completes only once the
// estimate is clear of the threshold by two standard errors (a true G at or above x passes a
// reading with probability at most 2.3 % if the estimate is unbiased and normal; AIS's
// downward bias in ln Z makes G read low, so the true rate can be higher).

import { above, below, centre, difference } from './quantities.js';

const m = (body) => `<math display="block">${body}</math>`;
const mi = (body) => `<math>${body}</math>`;
const live = (name, digits = 3) => `<output class="live" data-live="${name}" data-digits="${digits}">…</output>`;

// Formulas used more than once.
const ENERGY = m(
  '<mi>E</mi><mo>=</mo><mo>−</mo><munder><mo>∑</mo><mrow><mo>⟨</mo><mi>i</mi><mi>j</mi><mo>⟩</mo></mrow></munder><msub><mi>J</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub><msub><mi>s</mi><mi>i</mi></msub><msub><mi>s</mi><mi>j</mi></msub><mo>−</mo><mi>h</mi><munder><mo>∑</mo><mi>i</mi></munder><msub><mi>s</mi><mi>i</mi></msub>',
);
const BOLTZMANN = m(
  '<mi>P</mi><mo>(</mo><mi>s</mi><mo>)</mo><mo>=</mo><mfrac><msup><mi>e</mi><mrow><mo>−</mo><mi>E</mi><mo>(</mo><mi>s</mi><mo>)</mo><mo>/</mo><mi>T</mi></mrow></msup><mi>Z</mi></mfrac><mo>,</mo><mspace width="1em"/><mi>Z</mi><mo>=</mo><munder><mo>∑</mo><mi>s</mi></munder><msup><mi>e</mi><mrow><mo>−</mo><mi>E</mi><mo>(</mo><mi>s</mi><mo>)</mo><mo>/</mo><mi>T</mi></mrow></msup>',
);
const RULE = m(
  '<mi>Δ</mi><msub><mi>w</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub><mo>=</mo><mi>ε</mi><mo>(</mo><msub><mrow><mo>⟨</mo><msub><mi>s</mi><mi>i</mi></msub><msub><mi>s</mi><mi>j</mi></msub><mo>⟩</mo></mrow><mtext>clamped</mtext></msub><mo>−</mo><msub><mrow><mo>⟨</mo><msub><mi>s</mi><mi>i</mi></msub><msub><mi>s</mi><mi>j</mi></msub><mo>⟩</mo></mrow><mtext>free</mtext></msub><mo>)</mo>',
);
const KL = m(
  '<mi>G</mi><mo>=</mo><munder><mo>∑</mo><mi>v</mi></munder><msub><mi>p</mi><mtext>data</mtext></msub><mo>(</mo><mi>v</mi><mo>)</mo><mi>ln</mi><mfrac><mrow><msub><mi>p</mi><mtext>data</mtext></msub><mo>(</mo><mi>v</mi><mo>)</mo></mrow><mrow><mi>p</mi><mo>(</mo><mi>v</mi><mo>)</mo></mrow></mfrac>',
);

// The newest read-outs since `sweeps` sweeps ago (lattice) that all share the newest
// temperature and field: what a challenge judges a held condition on.
function heldFor(history, sweeps) {
  const last = history.at(-1);
  if (!last) return null;
  const window = [];
  for (let k = history.length - 1; k >= 0; k--) {
    const r = history[k];
    if (
      centre(r.temperature) !== centre(last.temperature) ||
      centre(r.field) !== centre(last.field) ||
      centre(r.sweeps) > centre(last.sweeps)
    )
      break;
    window.unshift(r);
    if (centre(last.sweeps) - centre(r.sweeps) >= sweeps) return window;
  }
  return null;
}

// Whether `condition` held at every read-out of the last `sweeps` sweeps (same T and h).
export function held(history, sweeps, condition) {
  const window = heldFor(history, sweeps);
  return window !== null && window.every(condition);
}

// The mean of `read` over the last `sweeps` sweeps (same T and h), or NaN before that.
export function meanOver(history, sweeps, read) {
  const window = heldFor(history, sweeps);
  if (window === null) return NaN;
  return window.reduce((sum, r) => sum + read(r), 0) / window.length;
}

// The 8-3-8 encoder's challenge: G (an AIS estimate) below this many nats, by two standard
// errors. From zero weights G = 16 ln 2 − ln 8 ≈ 9.01 nats.
export const ENCODER_GOAL = 4;

// A lattice scene: seed 1, random start, no field, heat-bath, sequential, periodic, unless
// the step says otherwise.
const lattice = ({ lattice: parameters, ...options }) => ({
  mode: 'lattice',
  seed: 1,
  ...options,
  lattice: { field: 0, rule: 'heat-bath', order: 'sequential', boundary: 'periodic', ...parameters },
});
// A pattern-memory scene: an 8 × 8 memory by Hebb's rule, seed 1, paused, unless told otherwise.
/** @param {{memory?: object, [key: string]: any}} [scene] */
const memory = ({ memory: parameters, ...options } = {}) => ({
  mode: 'memory',
  seed: 1,
  memory: { width: 8, height: 8, rule: 'hebb', temperature: 0, ...parameters },
  run: false,
  speed: 8,
  ...options,
});
const HEBB = m(
  '<msub><mi>w</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub><mo>=</mo><mfrac><mn>1</mn><mi>N</mi></mfrac><munderover><mo>∑</mo><mrow><mi>μ</mi><mo>=</mo><mn>1</mn></mrow><mi>P</mi></munderover><msubsup><mi>ξ</mi><mi>i</mi><mi>μ</mi></msubsup><msubsup><mi>ξ</mi><mi>j</mi><mi>μ</mi></msubsup><mo>,</mo><mspace width="1em"/><msub><mi>w</mi><mrow><mi>i</mi><mi>i</mi></mrow></msub><mo>=</mo><mn>0</mn>',
);

// A machine scene: seed 1, the stochastic machine on the 10-pixel images unless the step
// says otherwise.
/** @param {{machine?: object, [key: string]: any}} [scene] */
const machine = ({ machine: parameters, ...options } = {}) => ({
  mode: 'machine',
  seed: 1,
  ...options,
  machine: { dataset: 'pixels-10', method: 'stochastic', ...parameters },
});

// Lesson 2's challenge: the temperatures at which "the order melts" counts as found. Measured
// on its 64 × 64 lattice from the up start (heat-bath, sequential, 3000 sweeps, seeds 1–4):
// mean |M/N| after 300 sweeps 0.78–0.80 at T = 2.2, 0.68–0.74 at 2.25, 0.22–0.47 at 2.3,
// 0.19–0.33 at 2.35, 0.15–0.22 at 2.4, 0.09–0.13 at 2.45; the 30-sweep mean first fell below
// 0.5 never (in 3000 sweeps) at 2.25, after 143–662 sweeps at 2.3, 59–135 at 2.4. So the
// finite lattice melts between 2.25 and 2.3 (T_c = 2/ln(1 + √2) ≈ 2.269 for the infinite
// one): the window is 2.25 to 2.4, which holds both and passes within about 700 sweeps at
// any T in it above 2.3. Its lower edge also stops a pass by a lattice melted above and
// cooled fast, still disordered while it coarsens.
export const MELT_WINDOW = [2.25, 2.4];

// Lesson 3's last challenge: how long M/N must stay above 0.5 with clamps. Without clamps the
// up state of its 64 × 64 lattice at T = 1.5, h = −0.3 (heat-bath, sequential) falls below
// M/N = 0.5 after 79 to 192 sweeps (seeds 1–16, median 110; the step's seed 1: 192), so 400
// sweeps, twice the longest, cannot be met by waiting: some spins must be clamped.
export const KEEP_SWEEPS = 400;

// Lesson 14's prediction bands for the test ln p(v) at update 300 (seed 1 gives −145.4 ± 0.3
// there and −139.4 ± 0.9 at update 450, from −200.3 at update 0), and its challenge: the test ln p(v) above −MNIST_GOAL nats per
// image by two standard errors. Seed 1's points rise above it near update 2000 and fall below
// it again after about 3500 (CD-1 at ε = 0.1 does not climb the likelihood for long).
const MNIST_BANDS = [150, 190];
export const MNIST_GOAL = 125;

// An MNIST scene: a 784-100 machine (small enough to learn visibly in a minute on a 2-core
// laptop, large enough that ln Z needs AIS), CD-1 as the page's default trains it, seed 1,
// a log-likelihood point every 150 updates; later steps continue the run the first made.
// labels: true makes it the joint machine over the image and its one-of-10 label (784-100
// plus ten label units), which the labelled steps share.
/** @param {{[key: string]: any}} [scene] */
const mnist = ({ labels = false, ...scene } = {}) => ({
  mode: 'restricted',
  seed: 1,
  every: 150,
  ...scene,
  rbm: { dataset: 'mnist', hidden: 100, labels, statistics: 'cd', steps: 1, batch: 100, rate: 0.1, momentum: 0.5 },
});

export const COURSE = [
  {
    title: 'Spins and energy',
    goals: [
      'read the energy E = −Σ J s s of a configuration',
      'see that low energy is stable',
      'follow one Monte Carlo tick: local field, ΔE, the random number, the decision',
    ],
    steps: [
      {
        title: 'A lattice of spins',
        text: `Each square is a spin s<sub>i</sub> = +1 (light) or −1 (dark). Neighbours that agree lower the energy:${ENERGY}Here J = 1 and h = 0. Right now E/N = ${live('energy')}: a random picture sits near 0; all aligned would give −2.`,
        views: ['spins'],
        scene: lattice({
          lattice: {
            model: 'ferromagnet',
            size: 32,
            temperature: 2,
            field: 0,
            rule: 'heat-bath',
            order: 'sequential',
            boundary: 'periodic',
          },
          run: false,
          controls: ['status', 'run'],
          highlight: 'status',
        }),
        notes: {
          ask: 'Which picture has the lowest energy? How many such pictures are there?',
          limits: 'A 32 × 32 lattice with periodic edges: every spin has exactly four neighbours.',
        },
      },
      {
        title: 'One tick, explained',
        text: `A tick visits one spin, adds up its neighbours into the local field ${mi('<msub><mi>h</mi><mi>i</mi></msub><mo>=</mo><munder><mo>∑</mo><mi>j</mi></munder><msub><mi>J</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub><msub><mi>s</mi><mi>j</mi></msub>')}, and sets the spin up with probability${m('<mi>P</mi><mo>(</mo><msub><mi>s</mi><mi>i</mi></msub><mo>=</mo><mo>+</mo><mn>1</mn><mo>)</mo><mo>=</mo><mfrac><mn>1</mn><mrow><mn>1</mn><mo>+</mo><msup><mi>e</mi><mrow><mo>−</mo><mn>2</mn><msub><mi>h</mi><mi>i</mi></msub><mo>/</mo><mi>T</mi></mrow></msup></mrow></mfrac>')}The lattice waits: press “Step one tick” and the inspector shows that tick’s decision (the spin, h<sub>i</sub>, the probability, the random number); press it again for the next spin. Run plays one tick per frame, too fast to read.`,
        views: ['spins', 'inspector'],
        scene: lattice({
          lattice: {
            model: 'ferromagnet',
            size: 16,
            temperature: 1.5,
            field: 0,
            rule: 'heat-bath',
            order: 'sequential',
            boundary: 'periodic',
          },
          run: false,
          speed: { ticks: 1 },
          controls: ['run'],
          highlight: 'inspector',
        }),
        notes: {
          ask: 'A spin with all four neighbours up: what is h_i, and how likely is it to point down at T = 1.5?',
          limits:
            'This is the heat-bath rule; Metropolis flips with min(1, e^{−ΔE/T}) instead. Both sample the same distribution.',
        },
      },
      {
        title: 'Predict: a cold start from noise',
        text: 'Random spins are cooled at once to T = 0.5. Predict E/N after 100 sweeps (100 ticks per spin).',
        views: ['spins', 'trace'],
        scene: lattice({
          lattice: {
            model: 'ferromagnet',
            size: 64,
            temperature: 0.5,
            field: 0,
            rule: 'heat-bath',
            order: 'sequential',
            boundary: 'periodic',
          },
          run: false,
          speed: { sweeps: 4 },
          controls: ['status'],
        }),
        predict: {
          question: 'E/N after 100 sweeps at T = 0.5 will be…',
          choices: [
            { label: 'near 0: the noise stays', range: [-0.5, 0.5] },
            { label: 'between −1.99 and −1.5: mostly aligned, a few walls left', range: [-1.99, -1.5] },
            { label: 'exactly −2: perfectly aligned', range: [-2, -1.99] },
          ],
          measure: { label: 'E/N', read: (r) => r.energy, after: { sweeps: 100 } },
          explain:
            'Each tick lowers the energy locally, so patches of one colour grow; but where two patches meet the wall between them costs energy, and walls straighten only slowly.',
        },
        notes: {
          ask: 'Why does the energy not reach −2 at once, when every tick prefers alignment?',
          limits:
            'Domains grow like t^{1/2}; on a finite lattice they may end as stripes that survive for a very long time (forever only at T = 0).',
        },
      },
      {
        title: 'Challenge: low energy is stable',
        text: `Make the lattice hold E/N below −1.9 for 20 sweeps in a row. Now E/N = ${live('energy')} at T = ${live('temperature')}.`,
        views: ['spins', 'trace'],
        scene: lattice({
          lattice: {
            model: 'ferromagnet',
            size: 32,
            temperature: 3,
            field: 0,
            rule: 'heat-bath',
            order: 'sequential',
            boundary: 'periodic',
          },
          run: true,
          controls: ['run', 'temperature', 'status'],
          highlight: 'temperature',
        }),
        challenge: {
          goal: 'E/N below −1.9 at every reading for 20 sweeps',
          check: (history) => held(history, 20, (r) => below(r.energy, -1.9)),
        },
        notes: {
          ask: 'Does pressing “All up” at T = 3 do it? Why not?',
          limits: 'Low energy alone is not enough: it must also be likely at this temperature.',
        },
      },
    ],
  },
  {
    title: 'Temperature and the critical point',
    goals: [
      'state the Boltzmann distribution',
      'see order vanish near T_c = 2.269',
      'compare measured curves with Onsager’s exact solution',
    ],
    steps: [
      {
        title: 'The Boltzmann distribution',
        text: `At temperature T each state has probability${BOLTZMANN}High T: every picture is about as likely. Low T: the lowest energies win. M/N = ${live('magnetization')} at T = ${live('temperature')}.`,
        views: ['spins', 'trace'],
        scene: lattice({
          lattice: {
            model: 'ferromagnet',
            size: 64,
            temperature: 3,
            field: 0,
            rule: 'heat-bath',
            order: 'sequential',
            boundary: 'periodic',
          },
          run: true,
          controls: ['status', 'temperature'],
        }),
        notes: {
          ask: 'At T = ∞, what is P(s)? And at T → 0?',
          limits: 'Z is never computed here: the dynamics sample P(s) without it.',
        },
      },
      {
        title: 'Predict: cooling an ordered lattice',
        text: 'All spins start up at T = 1.5, below T<sub>c</sub>. Predict |M/N| after 200 sweeps.',
        views: ['spins', 'trace'],
        scene: lattice({
          lattice: {
            model: 'ferromagnet',
            size: 64,
            temperature: 1.5,
            field: 0,
            rule: 'heat-bath',
            order: 'sequential',
            boundary: 'periodic',
          },
          start: 'up',
          run: false,
          speed: { sweeps: 4 },
          controls: ['status'],
        }),
        predict: {
          question: '|M/N| after 200 sweeps at T = 1.5 will be…',
          choices: [
            { label: 'above 0.9: the order survives', range: [0.9, 1] },
            { label: 'between 0.3 and 0.9', range: [0.3, 0.9] },
            { label: 'below 0.3: the order melts', range: [0, 0.3] },
          ],
          measure: { label: '|M/N|', read: (r) => r.absMagnetization, after: { sweeps: 200 } },
          explain: `Below T<sub>c</sub> the ordered state is stable. Onsager’s exact magnetisation${m('<mi>m</mi><mo>=</mo><msup><mrow><mo>(</mo><mn>1</mn><mo>−</mo><msup><mi>sinh</mi><mrow><mo>−</mo><mn>4</mn></mrow></msup><mfrac><mn>2</mn><mi>T</mi></mfrac><mo>)</mo></mrow><mrow><mn>1</mn><mo>/</mo><mn>8</mn></mrow></msup>')}gives 0.986 at T = 1.5.`,
        },
        notes: {
          ask: 'What would happen at T = 3 from the same start?',
          limits: 'On a finite lattice the order can flip as a whole, but the time for that grows like e^{2σL/T}.',
        },
      },
      {
        title: 'Challenge: find where the order melts',
        text: `Find the lowest temperature at which the order melts: raise T in steps of 0.1 or less (type it in the Temperature box), and at each step wait until |M/N|, averaged over 30 sweeps, falls below 0.5 or plainly stays above it. Jumped too far? Come back down. Now M/N = ${live('magnetization')} at T = ${live('temperature')}.`,
        views: ['spins', 'trace'],
        scene: lattice({
          lattice: {
            model: 'ferromagnet',
            size: 64,
            temperature: 1.5,
            field: 0,
            rule: 'heat-bath',
            order: 'sequential',
            boundary: 'periodic',
          },
          start: 'up',
          run: true,
          speed: { sweeps: 4 },
          controls: ['temperature', 'status'],
          highlight: 'temperature',
        }),
        challenge: {
          goal: `mean |M/N| below 0.5 over 30 sweeps, at the transition (T from ${MELT_WINDOW[0]} to ${MELT_WINDOW[1]})`,
          check: (history) => {
            const t = centre(history.at(-1).temperature);
            return (
              t >= MELT_WINDOW[0] &&
              t <= MELT_WINDOW[1] &&
              meanOver(history, 30, (r) => centre(r.absMagnetization)) < 0.5
            );
          },
          judges: { label: 'T', read: (r) => r.temperature },
        },
        notes: {
          ask: 'Where did your class find it? Why is it a little above 2.269?',
          limits: `On a 64 × 64 lattice the transition is rounded and shifted by about L^{−1}: measured from the up start, the mean |M/N| is 0.68–0.74 at T = 2.25 but 0.22–0.47 at 2.3 and 0.15–0.22 at 2.4. The challenge accepts T from ${MELT_WINDOW[0]} to ${MELT_WINDOW[1]}; critical slowing down makes averages near T_c noisy (at 2.3 the 30-sweep mean first fell below 0.5 after 140–660 sweeps).`,
        },
      },
      {
        title: 'The sweep against Onsager',
        text: `Start the temperature sweep: a copy of this lattice cools from 3.5 to 1.5, measuring |m|, u, c and χ with error bars. Onsager solved the infinite lattice exactly:${m('<msub><mi>T</mi><mi>c</mi></msub><mo>=</mo><mfrac><mn>2</mn><mrow><mi>ln</mi><mo>(</mo><mn>1</mn><mo>+</mo><msqrt><mn>2</mn></msqrt><mo>)</mo></mrow></mfrac><mo>≈</mo><mn>2.269</mn>')}A hollow point was measured for fewer than 100 autocorrelation times, so its error bar is only a lower bound. Near T<sub>c</sub> successive sweeps stay alike for longer and longer (critical slowing down): 500 sweeps are far too few there. Then set the measurement sweeps to 5000 and sweep again: most points fill in, but those nearest T<sub>c</sub> stay hollow.`,
        views: ['spins', 'sweep-magnetisation', 'sweep-heat'],
        scene: lattice({
          lattice: {
            model: 'ferromagnet',
            size: 32,
            temperature: 2.269,
            field: 0,
            rule: 'heat-bath',
            order: 'sequential',
            boundary: 'periodic',
          },
          run: true,
          controls: ['sweep'],
          highlight: 'sweep',
        }),
        notes: {
          ask: 'Where do the points leave Onsager’s curve, and why is c’s peak finite?',
          limits:
            'The specific heat of the infinite lattice diverges logarithmically, c ∝ −ln|T − T_c|; a 32 × 32 lattice rounds it to a finite peak. The hollow points near T_c: the autocorrelation time grows as L^z (z ≈ 2.17 for local updates), so 500 sweeps hold only a few independent samples there and the error bars are lower bounds. Measured on this step (three sweeps each, seed 1): at 500 sweeps T = 2.1–3.1 were hollow (1.9 too in two of three); at 5000 only 2.3 and 2.5, where τ(|m|) was about 190 and 27 sweeps (11 at 2.7, 13 at 2.1, 2–4 far from T_c). A sweep of 5000 takes about half a second.',
        },
      },
    ],
  },
  {
    title: 'Quench and coarsening',
    goals: ['see domains form after a sudden cooling', 'see walls cost energy', 'keep a domain with a clamp'],
    steps: [
      {
        title: 'A quench',
        text: `Random spins (T = ∞) are cooled at once to T = 1. Domains form and grow; their size grows like${m('<mi>L</mi><mo>(</mo><mi>t</mi><mo>)</mo><mo>∼</mo><msup><mi>t</mi><mrow><mn>1</mn><mo>/</mo><mn>2</mn></mrow></msup>')}Sweeps: ${live('sweeps', 0)}, E/N = ${live('energy')}.`,
        views: ['spins', 'trace'],
        scene: lattice({
          lattice: {
            model: 'ferromagnet',
            size: 256,
            temperature: 1,
            field: 0,
            rule: 'heat-bath',
            order: 'checkerboard',
            boundary: 'periodic',
          },
          run: true,
          speed: { sweeps: 1 },
          controls: ['status', 'run'],
        }),
        notes: {
          ask: 'What sets the speed of a wall? Why do small domains vanish first?',
          limits: 'Checkerboard order here: the same distribution as sequential, faster.',
        },
      },
      {
        title: 'Predict: ordered in 500 sweeps?',
        text: 'The same quench on 128 × 128. Predict |M/N| after 500 sweeps.',
        views: ['spins', 'trace'],
        scene: lattice({
          lattice: {
            model: 'ferromagnet',
            size: 128,
            temperature: 1,
            field: 0,
            rule: 'heat-bath',
            order: 'checkerboard',
            boundary: 'periodic',
          },
          run: false,
          speed: { sweeps: 16 },
          controls: ['status'],
        }),
        predict: {
          question: '|M/N| after 500 sweeps will be…',
          choices: [
            { label: 'above 0.95: one colour', range: [0.95, 1] },
            { label: 'below 0.95: domains or stripes remain', range: [0, 0.95] },
          ],
          measure: { label: '|M/N|', read: (r) => r.absMagnetization, after: { sweeps: 500 } },
          explain:
            'Domains of size t^{1/2} ≈ 22 spins after 500 sweeps are still smaller than the lattice, and a stripe across the whole lattice has straight walls that no longer shrink. New run draws another seed: try a few.',
        },
        notes: {
          ask: 'How does the answer change with the lattice size?',
          limits: 'About a third of quenches on a periodic square end in stripes that live very long.',
        },
      },
      {
        title: 'Walls cost energy',
        text: `Each wall bond costs 2J. With n<sub>wall</sub> broken bonds${m('<mi>E</mi><mo>/</mo><mi>N</mi><mo>=</mo><mo>−</mo><mn>2</mn><mo>+</mo><mn>2</mn><msub><mi>n</mi><mtext>wall</mtext></msub><mo>/</mo><mi>N</mi>')}Paint a stroke of down spins into the up lattice (Brush: paint down) and watch E/N = ${live('energy')} rise, then the stroke dissolve.`,
        views: ['spins', 'trace'],
        scene: lattice({
          lattice: {
            model: 'ferromagnet',
            size: 64,
            temperature: 1.2,
            field: 0,
            rule: 'heat-bath',
            order: 'sequential',
            boundary: 'periodic',
          },
          start: 'up',
          run: true,
          controls: ['brush', 'status'],
          highlight: 'brush',
        }),
        notes: {
          ask: 'Does a thin stroke or a fat disc survive longer? Why?',
          limits: 'At T = 1.2 thermal flips also make small bubbles; they cost 8J each and close fast.',
        },
      },
      {
        title: 'Predict: a disc of down spins',
        text: `A disc of down spins (radius 16) in an up sea, at T = 1.5 with no field: no force pushes it either way, but its wall costs 2J per broken bond. Now M/N = ${live('magnetization')}.`,
        views: ['spins', 'trace'],
        scene: lattice({
          lattice: {
            model: 'ferromagnet',
            size: 64,
            temperature: 1.5,
            field: 0,
            rule: 'heat-bath',
            order: 'checkerboard',
            boundary: 'periodic',
          },
          picture: 'disc',
          run: false,
          speed: { sweeps: 16 },
          controls: ['status'],
        }),
        predict: {
          question: 'After 1000 sweeps, M/N will be…',
          choices: [
            { label: 'above 0.9: the disc has shrunk away', range: [0.9, 1] },
            { label: 'between 0.45 and 0.9: the disc is still there', range: [0.45, 0.9] },
            { label: 'below 0.45: the disc has grown', range: [-1, 0.45] },
          ],
          measure: { label: 'M/N', read: (r) => r.magnetization, after: { sweeps: 1000 } },
          explain:
            'A curved wall moves towards its centre of curvature: with no field, the disc’s area falls at a steady rate (dA/dt = −const, so R² shrinks linearly in time, Allen–Cahn), until it is gone. This is why small domains vanish first in a quench.',
        },
        notes: {
          ask: 'Which way does a curved wall move, and why does a flat one (the stripes after a quench) not move?',
          limits:
            'The lattice makes the wall’s energy depend on its direction, so the disc turns squarish as it shrinks; thermal noise makes the time it takes vary from run to run.',
        },
      },
      {
        title: 'Challenge: keep the domain against the field',
        text: `A field h = −0.3 pushes every spin down, and at T = 1.5 the up state flips within about 200 sweeps. Clamp some spins (Brush: clamp) so that M/N stays above 0.5 for ${KEEP_SWEEPS} sweeps with the phase clamped: twice as long as the up state lasts without clamps. Now M/N = ${live('magnetization')}, clamped spins: ${live('clamped', 0)}.`,
        views: ['spins', 'trace'],
        scene: lattice({
          lattice: {
            model: 'ferromagnet',
            size: 64,
            temperature: 1.5,
            field: -0.3,
            rule: 'heat-bath',
            order: 'sequential',
            boundary: 'periodic',
          },
          start: 'up',
          run: false,
          controls: ['brush', 'run', 'status'],
          highlight: 'brush',
        }),
        challenge: {
          goal: `M/N above 0.5 at every reading for ${KEEP_SWEEPS} sweeps, with h ≤ −0.2, the phase clamped and some spins clamped`,
          check: (history) =>
            held(
              history,
              KEEP_SWEEPS,
              (r) =>
                above(r.magnetization, 0.5) &&
                centre(r.field) <= -0.2 &&
                r.phase === 'clamped' &&
                centre(r.clamped) > 0,
            ),
        },
        notes: {
          ask: 'How few clamped spins are enough? Where should they go?',
          limits:
            'Clamped spins act as a fixed boundary; a line across the lattice pins the domain much better than a dot.',
        },
      },
    ],
  },
  {
    title: 'Spin glasses and frustration',
    goals: [
      'recognise a frustrated plaquette',
      'see why a glass cannot reach E/N = −2',
      'see a Boltzmann machine as a spin glass whose couplings are learned',
    ],
    steps: [
      {
        title: 'Random couplings',
        text: `Now each bond is J<sub>ij</sub> = ±1 at random. A square of four bonds whose product is negative cannot satisfy all four:${m('<munder><mo>∏</mo><mi>□</mi></munder><msub><mi>J</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub><mo>&lt;</mo><mn>0</mn>')}Frustrated plaquettes are marked in the weights view.`,
        views: ['spins', 'bonds'],
        scene: lattice({
          lattice: {
            model: 'spin-glass-pm',
            size: 16,
            temperature: 1,
            field: 0,
            rule: 'heat-bath',
            order: 'sequential',
            boundary: 'periodic',
          },
          run: true,
          controls: ['status'],
          highlight: 'weights',
        }),
        notes: {
          ask: 'About what fraction of plaquettes is frustrated with random ±1 bonds?',
          limits: 'Half of them: a product of four random signs is negative half the time.',
        },
      },
      {
        title: 'Predict: how low can a glass go?',
        text: 'A ±J glass on 32 × 32, random start, cooled to T = 0.5. Predict E/N after 300 sweeps.',
        views: ['spins', 'trace'],
        scene: lattice({
          lattice: {
            model: 'spin-glass-pm',
            size: 32,
            temperature: 0.5,
            field: 0,
            rule: 'heat-bath',
            order: 'sequential',
            boundary: 'periodic',
          },
          run: false,
          speed: { sweeps: 16 },
          controls: ['status'],
        }),
        predict: {
          question: 'E/N after 300 sweeps at T = 0.5 will be…',
          choices: [
            { label: 'near −2, like the ferromagnet', range: [-2, -1.8] },
            { label: 'between −1.8 and −1.2', range: [-1.8, -1.2] },
            { label: 'above −1.2', range: [-1.2, 0] },
          ],
          measure: { label: 'E/N', read: (r) => r.energy, after: { sweeps: 300 } },
          explain:
            'Every frustrated plaquette leaves at least one bond broken. The exact ground state of the 2D ±J glass has E/N ≈ −1.40, and slow dynamics stay a little above it.',
        },
        notes: {
          ask: 'Would a slower cooling reach lower? Would a longer run?',
          limits:
            'Ground-state energy per spin −1.4015 for the infinite 2D ±J glass (exact ground states by matching); finite lattices scatter around it.',
        },
      },
      {
        title: 'Many valleys',
        text: `Gaussian couplings J<sub>ij</sub> ~ N(0, 1). At T = 0.4 each new run settles into its own pattern. Press New run a few times and compare the pictures and E/N = ${live('energy')}.`,
        views: ['spins', 'trace'],
        scene: lattice({
          lattice: {
            model: 'spin-glass-gaussian',
            size: 32,
            temperature: 0.4,
            field: 0,
            rule: 'heat-bath',
            order: 'sequential',
            boundary: 'periodic',
          },
          run: true,
          speed: { sweeps: 4 },
          controls: ['status'],
        }),
        notes: {
          ask: 'A new run changes the couplings too. How would you test whether one glass has many valleys?',
          limits:
            'New run draws a new seed: new couplings and new spins. Replay repeats the same glass and the same film.',
        },
      },
      {
        title: 'The Sherrington–Kirkpatrick glass',
        text: `Now couple every pair at random, the fully connected glass of Sherrington and Kirkpatrick (1975):${m('<msub><mi>J</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub><mo>∼</mo><mi mathvariant="script">N</mi><mo>(</mo><mn>0</mn><mo>,</mo><mn>1</mn><mo>/</mo><mi>N</mi><mo>)</mo>')}The weights view shows the random matrix. Press “Dream freely”: the units flicker and never settle. About half of all coupling triangles are frustrated, and at T = 1, the transition temperature of the SK glass with these couplings, a glass of 10 units barely orders.`,
        views: ['machine-weights', 'units'],
        scene: machine({
          couplings: 'random',
          run: false,
          controls: ['explore', 'options'],
          highlight: 'explore',
        }),
        notes: {
          ask: 'Why 1/N? What would happen to the local fields as N grows with J ~ N(0, 1)?',
          limits:
            'The machine’s units are 0/1; the couplings are the SK glass’s ±1 couplings rewritten for 0/1 units, the same energy up to a constant.',
        },
      },
      {
        title: 'A Boltzmann machine is a spin glass with learned couplings',
        text: `A Boltzmann machine has the same energy, with a coupling w<sub>ij</sub> between every pair and 0/1 units:${m('<mi>E</mi><mo>=</mo><mo>−</mo><munder><mo>∑</mo><mrow><mi>i</mi><mo>&lt;</mo><mi>j</mi></mrow></munder><msub><mi>w</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub><msub><mi>s</mi><mi>i</mi></msub><msub><mi>s</mi><mi>j</mi></msub><mo>−</mo><munder><mo>∑</mo><mi>i</mi></munder><msub><mi>θ</mi><mi>i</mi></msub><msub><mi>s</mi><mi>i</mi></msub>')}Here it learns the six 10-pixel images: watch the weights grow from zero into a structured, still frustrated, matrix. Cycle ${live('cycle', 0)}.`,
        views: ['machine-weights', 'units'],
        scene: machine({
          run: true,
          controls: ['learning'],
          highlight: 'machine-weights',
        }),
        notes: {
          ask: 'Find a frustrated triangle of weights in the learned matrix.',
          limits:
            'A lattice glass has random couplings fixed by the seed; the machine’s couplings are chosen by learning to make the training images likely.',
        },
      },
    ],
  },
  {
    title: 'Minimising energy is Hebbian',
    goals: [
      'read which joint states a coupling makes cheap',
      'connect “fire together, wire together” to lowering the energy of the data',
    ],
    steps: [
      {
        title: 'Two units',
        text: `Two 0/1 units s<sub>3</sub> and s<sub>8</sub>, one weight J<sub>38</sub>:${m('<mi>E</mi><mo>=</mo><mo>−</mo><msub><mi>J</mi><mn>38</mn></msub><msub><mi>s</mi><mn>3</mn></msub><msub><mi>s</mi><mn>8</mn></msub><mo>,</mo><mspace width="1em"/><mi>P</mi><mo>∝</mo><msup><mi>e</mi><mrow><mo>−</mo><mi>E</mi><mo>/</mo><mi>T</mi></mrow></msup>')}Only the state (1, 1) feels the weight. Set J<sub>38</sub> and read the four exact probabilities at T = 1.`,
        widget: 'two-units',
        views: ['two-units'],
        scene: machine({
          run: false,
          controls: [],
        }),
        notes: {
          ask: 'With J = 0, what is the probability of each joint state?',
          limits: 'Four states: the table is exact, computed from the formula on the card.',
        },
      },
      {
        title: 'Predict: a positive coupling',
        text: 'Set J<sub>38</sub> = +3 in your head first.',
        widget: 'two-units',
        views: ['two-units'],
        scene: machine({
          run: false,
          controls: [],
        }),
        predict: {
          question: 'With J₃₈ = +3 at T = 1, the probability that both units are on is…',
          choices: [
            { label: 'below 0.25', range: [0, 0.25] },
            { label: 'between 0.25 and 0.6', range: [0.25, 0.6] },
            { label: 'above 0.6', range: [0.6, 1] },
          ],
          measure: { label: 'P(s₃ = s₈ = 1) at J₃₈ = 3', read: () => Math.exp(3) / (3 + Math.exp(3)), after: {} },
          explain:
            'P(1,1) = e³ / (3 + e³) ≈ 0.87: a positive weight makes “both on” cheap, so the pair fires together.',
        },
        notes: {
          ask: 'And with J = −3?',
          limits: 'The same algebra holds inside a big machine, given the rest of the network (the local field).',
        },
      },
      {
        title: 'The Hebbian step',
        text: `Learning lowers the energy of what the data shows: in the clamped phase it raises w<sub>ij</sub> by how often i and j are on together,${m('<mi>Δ</mi><msub><mi>w</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub><mo>∝</mo><msub><mrow><mo>⟨</mo><msub><mi>s</mi><mi>i</mi></msub><msub><mi>s</mi><mi>j</mi></msub><mo>⟩</mo></mrow><mtext>clamped</mtext></msub>')}Units that fire together wire together (Hebb 1949). Watch the clamped correlations.`,
        views: ['correlations-clamped', 'machine-weights'],
        scene: machine({
          run: true,
          speed: { sweeps: 1 },
          controls: ['learning'],
          highlight: 'correlations',
        }),
        notes: {
          ask: 'If only this term acted, what would happen to every weight?',
          limits: 'Alone, the Hebbian term grows without bound; the free phase (next lesson) stops it.',
        },
      },
      {
        title: 'Challenge: make both on likely',
        text: 'Set J<sub>38</sub> so that P(s<sub>3</sub> = s<sub>8</sub> = 1) is above 0.5 but below 0.6.',
        widget: 'two-units',
        views: ['two-units'],
        scene: machine({
          run: false,
          controls: [],
        }),
        challenge: {
          goal: '0.5 < P(1, 1) < 0.6',
          check: (history) => {
            const p = centre(history.at(-1).pBothOn);
            return p > 0.5 && p < 0.6;
          },
        },
        notes: {
          ask: 'What is the exact J? (ln 3 ≈ 1.10 gives 0.5.)',
          limits: 'P(1,1) = e^J / (3 + e^J), so 0.5 < P < 0.6 means ln 3 < J < ln 4.5.',
        },
      },
    ],
  },
  {
    title: 'Learning is the gradient of the log-likelihood',
    goals: [
      'write the two-phase rule and name its terms',
      'switch between the clamped and the free phase by hand',
      'see G, the divergence from the data, fall',
    ],
    steps: [
      {
        title: 'Two phases',
        text: `The rule follows the gradient of G, the divergence of the machine from the data:${KL}${RULE}The first term is Hebbian (the data clamped), the second is unlearning (the machine dreaming).`,
        views: ['correlations-clamped', 'correlations-free'],
        scene: machine({
          run: false,
          controls: ['learning'],
        }),
        notes: {
          ask: 'When does a weight stop changing?',
          limits:
            'When clamped and free correlations agree: the machine then matches every pairwise statistic of the data.',
        },
      },
      {
        title: 'Switch the phase by hand',
        text: 'Press “Clamp and settle” to show the machine a pattern, then “Dream freely” to let it run alone. Compare ⟨s<sub>i</sub>s<sub>j</sub>⟩ clamped, free and their difference.',
        views: ['units', 'correlations-clamped', 'correlations-free', 'correlations-difference'],
        scene: machine({
          run: false,
          controls: ['explore'],
          highlight: 'explore',
        }),
        notes: {
          ask: 'Before any learning, what does the free phase look like?',
          limits: 'With all weights zero every unit is on with probability 1/2, independently.',
        },
      },
      {
        title: 'Predict: does G fall?',
        text: `The machine starts from zero weights: G = ln(2¹⁰/6) ≈ 5.14 nats. Now G = ${live('kl')}.`,
        views: ['curve'],
        scene: machine({
          run: false,
          speed: 'max',
          controls: ['learning'],
        }),
        predict: {
          question: 'After 100 learning cycles, G will be…',
          choices: [
            { label: 'still above 4', range: [4, Infinity] },
            { label: 'between 1 and 4', range: [1, 4] },
            { label: 'below 1', range: [0, 1] },
          ],
          measure: { label: 'G (exact)', read: (r) => r.kl, after: { cycles: 100 } },
          explain:
            'Each cycle moves every weight toward the data. G never reaches 0 here: with no hidden units the machine can only match pairwise statistics, which do not pin six images exactly.',
        },
        notes: {
          ask: 'Why is the curve noisy?',
          limits: 'The statistics are sampled (a finite settling), so each step is a noisy gradient step.',
        },
      },
      {
        title: 'Challenge: learn well',
        text: `Run learning (you may change the rate) until G falls below 2 nats. Now G = ${live('kl')} at cycle ${live('cycle', 0)}.`,
        views: ['curve'],
        scene: machine({
          run: true,
          speed: 'max',
          controls: ['learning', 'options'],
          highlight: 'curve',
        }),
        challenge: {
          goal: 'G below 2 nats',
          check: (history) => below(history.at(-1).kl, 2),
          judges: { label: 'G', read: (r) => r.kl },
        },
        notes: {
          ask: 'What does too large a rate do?',
          limits: 'G is exact here (10 units: 1024 states). Bigger machines need AIS.',
        },
      },
    ],
  },
  {
    title: 'Without hidden units: the 10-pixel images',
    goals: [
      'generate images from a learned machine',
      'compare samples with exact probabilities',
      'see the limit of pairwise models',
    ],
    steps: [
      {
        title: 'Six images',
        text: 'The training set: six images of 10 pixels. Every pixel is a visible unit; there are no hidden units. The machine learns a probability for every one of the 1024 possible images.',
        views: ['patterns', 'units'],
        scene: machine({
          run: true,
          speed: 'max',
          controls: ['learning'],
        }),
        notes: {
          ask: 'How many numbers does the machine have to learn? (45 weights and 10 biases.)',
          limits: 'pixels-10 is small enough for every figure to be exact.',
        },
      },
      {
        title: 'Dreaming',
        text: 'After some learning, press “Dream freely”: the machine generates images on its own. Are they the training images?',
        views: ['units', 'patterns'],
        scene: machine({
          run: true,
          speed: 'max',
          controls: ['explore', 'learning'],
          highlight: 'explore',
        }),
        notes: {
          ask: 'Which wrong images does it dream most often?',
          limits: 'A dream is one long chain: successive pictures are correlated.',
        },
      },
      {
        title: 'The gallery against exact probabilities',
        text: 'Draw samples in the gallery: each image is shown with how often it was drawn and its exact probability under the machine.',
        views: ['gallery'],
        scene: machine({
          run: true,
          speed: 'max',
          controls: ['learning'],
          highlight: 'gallery',
        }),
        notes: {
          ask: 'Do frequencies match probabilities within their noise?',
          limits: 'n samples give frequencies within about √(p(1−p)/n).',
        },
      },
      {
        title: 'Predict: can it be perfect?',
        text: `Can a machine with no hidden units give each of the six images probability 1/6 and all others 0? Now G = ${live('kl')}.`,
        views: ['curve'],
        scene: machine({
          run: false,
          speed: 'max',
          controls: ['learning'],
        }),
        predict: {
          question: 'After 300 cycles, G (0 would be perfect) will be…',
          choices: [
            { label: 'about 0: perfect', range: [0, 0.1] },
            { label: 'clearly above 0', range: [0.1, Infinity] },
          ],
          measure: { label: 'G (exact)', read: (r) => r.kl, after: { cycles: 300 } },
          explain:
            'A machine without hidden units is a maximum-entropy model of the pairwise statistics: it cannot put all its probability on six images and nothing on their mixtures. Hidden units (next lesson) lift that limit.',
        },
        notes: {
          ask: 'What would a hidden unit add?',
          limits: 'Exact G; it levels off at the best pairwise model (plus sampling noise).',
        },
      },
    ],
  },
  {
    title: 'Hidden units: the 4-2-4 encoder',
    goals: ['see Phase+ and Phase− on a machine with hidden units', 'watch codes appear in the hidden units'],
    steps: [
      {
        title: 'The encoder',
        text: 'Two groups of four visible units talk only through two hidden units. To pass a pattern across, the hidden units must give each of the four patterns its own two-bit code.',
        views: ['units', 'graph'],
        scene: machine({
          machine: { dataset: '4-2-4', method: 'stochastic' },
          run: false,
          controls: ['learning'],
        }),
        notes: {
          ask: 'How many codes do two binary hidden units have?',
          limits: 'Exactly four: the encoder must use every one.',
        },
      },
      {
        title: 'One pattern clamped',
        text: 'Pattern 1 is clamped on the visible units (ringed). Only the two hidden units are free: they settle to whatever code the present weights give this pattern. Try the other patterns (Pattern to clamp): before learning, do they get different codes?',
        views: ['units', 'graph'],
        scene: machine({
          machine: { dataset: '4-2-4', method: 'stochastic' },
          clamp: 1,
          run: false,
          controls: ['explore'],
          highlight: 'explore',
        }),
        notes: {
          ask: 'What must learning do so that the four patterns get four different codes?',
          limits:
            'At the learning temperature the hidden units keep flipping: a code is what they hold most of the time.',
        },
      },
      {
        title: 'Phase+ and Phase−',
        text: `Slowly: in Phase+ a pattern is clamped on both groups and the hidden units settle; in Phase− nothing is clamped and the whole machine runs free.${RULE}Phase: watch the status line.`,
        views: ['machine-status', 'units', 'correlations-clamped', 'correlations-free'],
        scene: machine({
          machine: { dataset: '4-2-4', method: 'stochastic' },
          run: true,
          speed: { sweeps: 1 },
          controls: ['learning'],
        }),
        notes: {
          ask: 'Why must the free phase also run the visible units?',
          limits: 'The protocol is the 1985 paper’s: annealing from T = 20 to 10, then counting.',
        },
      },
      {
        title: 'Predict: how long to find the codes?',
        text: `Solved so far: ${live('solved', 0)}.`,
        views: ['curve', 'units'],
        scene: machine({
          machine: { dataset: '4-2-4', method: 'stochastic' },
          run: false,
          speed: 'max',
          controls: ['learning'],
        }),
        predict: {
          question: 'How many of the 4 codes are distinct after 150 cycles?',
          choices: [
            { label: '0 to 2', range: [0, 2.5] },
            { label: '3', range: [2.5, 3.5] },
            { label: 'all 4', range: [3.5, 4] },
          ],
          measure: { label: 'codes found', read: (r) => r.solved, after: { cycles: 150 } },
          explain:
            'Ackley, Hinton and Sejnowski (1985) report a median of 110 cycles for 4-2-4 (boltzlab: median 98.5 over 250 runs).',
        },
        notes: {
          ask: 'What does the machine do before the codes separate?',
          limits: 'Some runs take much longer: a few settle into a local minimum with two patterns sharing a code.',
        },
      },
      {
        title: 'Challenge: all four codes',
        text: `Run learning until all four codes are distinct: learning then pauses, and the challenge notes the cycle. Solved: ${live('solved', 0)} of 4, cycle ${live('cycle', 0)}. Run it on and the count can fall again: the 1985 sign rule moves a weight a full step of 2 whenever its clamped and free statistics differ at all, and never pulls one back, so the weights keep growing; after a few hundred cycles the hidden units no longer mix at the learning temperature and may settle into a wrong code. Each count also reads the codes afresh from a few settlings.`,
        views: ['curve', 'units'],
        scene: machine({
          machine: { dataset: '4-2-4', method: 'stochastic' },
          run: true,
          speed: 'max',
          controls: ['learning'],
          highlight: 'curve',
        }),
        challenge: {
          goal: '4 of 4 codes distinct (learning pauses then)',
          check: (history) => centre(history.at(-1).solved) === 4,
          judges: { label: 'distinct codes', read: (r) => r.solved },
          at: { label: 'cycle', read: (r) => r.cycle },
          pause: 'machine',
        },
        notes: {
          ask: 'Read the codes from the hidden units: are they the four corners of the square? Run on: why does the count fall?',
          limits:
            'Seeded: Replay gives the same run; New run another. Under the 1985 sign rule the weights grow without bound (no decay); settlings at T = 10 stop mixing and codes merge or are read wrongly, as measured for 8-3-8 in docs/ackley1985.md §4.',
        },
      },
      {
        title: 'Challenge: a larger encoder, G by AIS',
        text: `The 8-3-8 encoder: 16 visible units talk through 3 hidden ones, and eight patterns need all eight three-bit codes. Its ${mi('<msup><mn>2</mn><mn>19</mn></msup>')} states are too many to sum G every cycle, so every 10 cycles the page estimates ln Z by annealed importance sampling (AIS), with a standard error. From zero weights G = 16 ln 2 − ln 8 ≈ 9.01 nats. Run learning until G is below ${ENCODER_GOAL} nats beyond doubt: the estimate plus two standard errors below ${ENCODER_GOAL}. Now G = ${live('kl')} (AIS, cycle ${live('klCycle', 0)}).`,
        views: ['curve', 'units'],
        scene: machine({
          machine: { dataset: '8-3-8', method: 'stochastic' },
          run: true,
          speed: 'max',
          controls: ['learning'],
          highlight: 'curve',
        }),
        challenge: {
          goal: `G below ${ENCODER_GOAL} nats: the AIS estimate plus two standard errors`,
          check: (history) => below(history.at(-1).kl, ENCODER_GOAL),
          judges: { label: 'G', read: (r) => r.kl },
        },
        notes: {
          ask: 'Why is G only estimated here, and why does the challenge ask for two standard errors? Leave it learning: what does G do later?',
          limits: `Each AIS point is an estimate: a mean of importance weights. Below ${ENCODER_GOAL} by two standard errors means a G truly at ${ENCODER_GOAL} or above passes a reading with probability at most 2.3 % if the estimate is unbiased and normal; AIS’s downward bias in ln Z makes G read low, so the true rate can be higher. Left learning at full speed, G later climbs again (in one measured run: about 1.1 nats near cycle 2000, 18 by cycle 20 000) as the weights keep growing.`,
        },
      },
    ],
  },
  {
    title: 'The normalising constant Z',
    goals: [
      'compute Z by brute force over 2^n',
      'see why sampling gives a lower bound',
      'use mean field: Z ≥ e^{−F/T}',
      'choose a method by n',
    ],
    steps: [
      {
        title: 'Brute force',
        text: `Z sums 2<sup>n</sup> terms:${BOLTZMANN}For the 4-2-4 machine (10 units) that is 1024 terms. Press “Compute ln Z”.`,
        views: ['machine-logz'],
        scene: machine({
          machine: { dataset: '4-2-4', method: 'stochastic' },
          run: false,
          controls: [],
          highlight: 'machine-logz',
        }),
        notes: {
          ask: 'How long for 40 units? 2^40 ≈ 10^12 terms.',
          limits: 'Enumeration is exact up to about 30 units here; its time doubles with each unit.',
        },
      },
      {
        title: 'Sampling gives a lower bound',
        text: 'Summing e<sup>−E/T</sup> over the distinct states a sampler visits misses the states it never saw, so the sum is below Z. Here the 8-3-8 machine: 19 units, 524 288 states.',
        views: ['machine-logz'],
        // The 8-3-8 machine, not 4-2-4: the page's sampled sum (2000 sweeps) meets all 1024
        // states of 4-2-4 and equals Z there, while it cannot meet 2¹⁹.
        scene: machine({
          machine: { dataset: '8-3-8', method: 'stochastic' },
          run: false,
          controls: [],
        }),
        predict: {
          question: 'For the untrained 8-3-8 machine (all weights 0), is the sampled ln Z…',
          choices: [
            { label: 'below the exact value', range: [-Infinity, -1e-9] },
            { label: 'equal to it', range: [-1e-9, 1e-9] },
            { label: 'above it', range: [1e-9, Infinity] },
          ],
          measure: {
            label: 'sampled − exact ln Z',
            read: (r) => difference(r.logZ.sampled, r.logZ.exact),
            after: { logZ: true },
          },
          explain:
            'A sum over some of the states can only be smaller: the sampled value is a lower bound. With all weights zero every state has the same weight, so it misses whatever it did not visit: 2000 sweeps of 19 units meet at most 38 000 of the 524 288 states. (On the 4-2-4 machine they meet all 1024, and the bound is exact.)',
        },
        notes: {
          ask: 'When would the bound be tight?',
          limits: 'When the visited states carry almost all of the probability: low T, few modes.',
        },
      },
      {
        title: 'Mean field: Z ≥ e^{−F/T}',
        text: `Mean field replaces the units by their averages m<sub>i</sub> and minimises${m('<mi>F</mi><mo>=</mo><mi>E</mi><mo>(</mo><mi>m</mi><mo>)</mo><mo>−</mo><mi>T</mi><mi>S</mi><mo>(</mo><mi>m</mi><mo>)</mo><mo>,</mo><mspace width="1em"/><mi>ln</mi><mi>Z</mi><mo>≥</mo><mo>−</mo><mi>F</mi><mo>/</mo><mi>T</mi>')}a lower bound that costs n² per iteration, not 2<sup>n</sup>.`,
        views: ['machine-logz'],
        scene: machine({
          machine: { dataset: '4-2-4', method: 'stochastic' },
          run: false,
          controls: [],
        }),
        notes: {
          ask: 'Where does mean field fail?',
          limits: 'It ignores correlations: strongly coupled or frustrated machines are where it is worst.',
        },
      },
      {
        title: 'Which method, when',
        text: 'The lattice has its own ln Z panel. Exact: enumeration up to 30 spins (5 × 5), and for a larger periodic ferromagnet at h = 0 Kaufman’s formula (1949), which sums the transfer matrix in closed form. The sampled and mean-field lower bounds and AIS work at any size. Compute it for sides 8 and 16: how far below the exact row are the bounds, and is AIS within its error? Then add a field h: no exact route is left.',
        views: ['lattice-logz', 'spins'],
        scene: lattice({
          lattice: {
            model: 'ferromagnet',
            size: 8,
            temperature: 2.269,
            field: 0,
            rule: 'heat-bath',
            order: 'sequential',
            boundary: 'periodic',
          },
          run: true,
          controls: ['model'],
          highlight: 'lattice-logz',
        }),
        notes: {
          ask: 'Exact for small n; mean field for a quick bound; AIS with an error bar when n is large and the answer matters. Which would you use for a 64 × 64 lattice?',
          limits: 'AIS is unbiased in Z, not in ln Z, and its error bar is itself estimated.',
        },
      },
    ],
  },
  {
    title: 'The deterministic machine against the stochastic one',
    goals: ['state the mean-field equations', 'compare learning speed and quality', 'know when mean field misleads'],
    steps: [
      {
        title: 'Mean-field settling',
        text: `Peterson and Anderson (1987) replace sampled correlations by products of averages:${m('<msub><mi>m</mi><mi>i</mi></msub><mo>=</mo><mi>tanh</mi><mo>(</mo><mo>(</mo><munder><mo>∑</mo><mi>j</mi></munder><msub><mi>w</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub><msub><mi>m</mi><mi>j</mi></msub><mo>+</mo><msub><mi>θ</mi><mi>i</mi></msub><mo>)</mo><mo>/</mo><mi>T</mi><mo>)</mo><mo>,</mo><mspace width="1em"/><mo>⟨</mo><msub><mi>s</mi><mi>i</mi></msub><msub><mi>s</mi><mi>j</mi></msub><mo>⟩</mo><mo>≈</mo><msub><mi>m</mi><mi>i</mi></msub><msub><mi>m</mi><mi>j</mi></msub>')}These are Peterson and Anderson’s ±1 units (for 0/1 units, m<sub>i</sub> = σ(·) instead of tanh). No random numbers: the same weights always give the same statistics.`,
        views: ['units', 'correlations-clamped', 'correlations-free'],
        scene: machine({
          machine: { dataset: '4-2-4', method: 'mean-field' },
          run: true,
          speed: { sweeps: 1 },
          controls: ['learning'],
        }),
        notes: {
          ask: 'What is lost by writing ⟨s_i s_j⟩ ≈ m_i m_j?',
          limits: 'Correlations between units; exact only when units are independent.',
        },
      },
      {
        title: 'Predict: which is faster?',
        text: `The mean-field machine learns 4-2-4. Solved: ${live('solved', 0)} of 4.`,
        views: ['curve'],
        scene: machine({
          machine: { dataset: '4-2-4', method: 'mean-field' },
          run: false,
          speed: 'max',
          controls: ['learning'],
        }),
        predict: {
          question: 'After 60 cycles, the mean-field machine has found…',
          choices: [
            { label: '0 to 2 codes', range: [0, 2.5] },
            { label: '3 codes', range: [2.5, 3.5] },
            { label: 'all 4 codes', range: [3.5, 4] },
          ],
          measure: { label: 'codes found', read: (r) => r.solved, after: { cycles: 60 } },
          explain:
            'Peterson and Anderson report mean-field learning 10–30 times faster on XOR, encoder and line-symmetry problems: each cycle’s statistics are deterministic (though approximate), so there is no sampling noise to average away.',
        },
        notes: {
          ask: 'Cycles are not seconds: what does one mean-field cycle cost against one stochastic cycle?',
          limits:
            'On bigger encoders (40-10-40) the tanh mean-field machine with the sign rule does badly here; see docs/ackley1985.md.',
        },
      },
      {
        title: 'The stochastic machine, same seed',
        text: `Now the stochastic machine on the same task. Cycle ${live('cycle', 0)}, solved ${live('solved', 0)} of 4.`,
        views: ['curve'],
        scene: machine({
          machine: { dataset: '4-2-4', method: 'stochastic' },
          run: true,
          speed: 'max',
          controls: ['learning'],
        }),
        notes: {
          ask: 'Compare the two learning curves: which is smoother, which ends lower?',
          limits: 'Each curve is one seeded run; compare several with New run before concluding.',
        },
      },
      {
        title: 'Challenge: solve it deterministically',
        text: `With the mean-field method, get all four codes. Solved: ${live('solved', 0)} of 4.`,
        views: ['curve'],
        scene: machine({
          machine: { dataset: '4-2-4', method: 'mean-field' },
          run: true,
          speed: 'max',
          controls: ['learning', 'options'],
        }),
        challenge: {
          goal: '4 of 4 codes with the mean-field machine',
          check: (history) => centre(history.at(-1).solved) === 4 && history.at(-1).method === 'mean-field',
        },
        notes: {
          ask: 'When would you still pay for sampling?',
          limits: 'Mean field can be confidently wrong: a symmetric solution m = 0 is a fixed point too.',
        },
      },
    ],
  },
  {
    title: 'More efficient statistics: fantasy particles and restricted machines',
    goals: [
      'see why re-annealing every cycle is slow',
      'keep fantasy particles from cycle to cycle, with a small learning rate',
      'watch a restricted machine learn handwritten digits and complete one',
    ],
    steps: [
      {
        title: 'Why the 1985 statistics are slow',
        text: `Every cycle of the 1985 rule starts each phase from random states and anneals from T = 20 down to 10 before it counts anything: most sweeps are spent forgetting the last cycle. Watch the temperature in the status line. Cycle ${live('cycle', 0)}.`,
        views: ['machine-status', 'units'],
        scene: machine({
          machine: { dataset: '4-2-4' },
          run: true,
          speed: { sweeps: 1 },
          controls: ['learning'],
        }),
        notes: {
          ask: 'The weights barely change between cycles: why start the chains from scratch each time?',
          limits:
            'Annealing protects against chains stuck in one mode; persistent chains give that up, and pay for it with a small learning rate.',
        },
      },
      {
        title: 'Fantasy particles',
        text: `Keep K free-running chains, the fantasy particles, from cycle to cycle and advance each k sweeps per cycle (Neal 1992; for restricted machines, Tieleman 2008’s persistent contrastive divergence):${m('<mi>Δ</mi><msub><mi>w</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub><mo>=</mo><mi>ε</mi><mo>(</mo><msub><mrow><mo>⟨</mo><msub><mi>s</mi><mi>i</mi></msub><msub><mi>s</mi><mi>j</mi></msub><mo>⟩</mo></mrow><mtext>data</mtext></msub><mo>−</mo><mfrac><mn>1</mn><mi>K</mi></mfrac><munderover><mo>∑</mo><mrow><mi>k</mi><mo>=</mo><mn>1</mn></mrow><mi>K</mi></munderover><msubsup><mi>s</mi><mi>i</mi><mrow><mo>(</mo><mi>k</mi><mo>)</mo></mrow></msubsup><msubsup><mi>s</mi><mi>j</mi><mrow><mo>(</mo><mi>k</mi><mo>)</mo></mrow></msubsup><mo>)</mo>')}Here K = 50, k = 1, ε = 0.05 on the 10-pixel images. G = ${live('kl')}.`,
        views: ['curve'],
        scene: machine({
          machine: { rule: 'gradient', rate: 0.05, statistics: { name: 'persistent-free', particles: 50, sweeps: 1 } },
          run: true,
          speed: 'max',
          controls: ['learning', 'options'],
          highlight: 'options',
        }),
        notes: {
          ask: 'Each cycle now costs 50 sweeps instead of hundreds: what does it lose?',
          limits:
            'The particles lag behind the changing weights; that lag is only small when each step changes the weights little.',
        },
      },
      {
        title: 'Predict: persistent particles and a large rate',
        text: 'The same particles, with a learning rate ten times larger (ε = 0.5). G starts at 5.14 nats.',
        views: ['curve'],
        scene: machine({
          machine: { rule: 'gradient', rate: 0.5, statistics: { name: 'persistent-free', particles: 50, sweeps: 1 } },
          run: false,
          speed: 'max',
          controls: ['learning'],
        }),
        predict: {
          question: 'After 300 cycles at ε = 0.5, G will be…',
          choices: [
            { label: 'below 2.5: faster learning', range: [0, 2.5] },
            { label: 'between 2.5 and 5.14', range: [2.5, 5.14] },
            { label: 'above 5.14: worse than the start', range: [5.14, Infinity] },
          ],
          measure: { label: 'G (exact)', read: (r) => r.kl, after: { cycles: 300 } },
          explain:
            'With a large rate the weights move faster than the particles can follow: the free statistics describe an older machine, the updates overshoot, and the weights can run away. boltzlab reproduce statistics measures this on the 10-pixel images (docs/validation.md).',
        },
        notes: {
          ask: 'Why does the annealed rule tolerate ε = 0.5 here?',
          limits: 'One seeded run; the outcome at large rates varies with the seed. New run tries another.',
        },
      },
      {
        title: 'A restricted machine learns digits',
        text: `A restricted machine connects only visible to hidden units, so p(h | v) is exact and a whole layer updates at once (block Gibbs). Here 64 pixels and 16 hidden units learn 1500 handwritten digits with 100 fantasy particles, drawn live. Test ln p(v) per image: ${live('testLogLikelihood', 2)} nats (exact: 2¹⁶ hidden states summed).`,
        views: ['fantasy', 'likelihood'],
        scene: {
          mode: 'restricted',
          seed: 1,
          rbm: {
            dataset: 'digits8',
            hidden: 16,
            statistics: 'persistent',
            steps: 1,
            particles: 100,
            batch: 100,
            rate: 0.05,
            momentum: 0.5,
          },
          run: true,
          controls: ['rbm-learning'],
          highlight: 'fantasy',
        },
        notes: {
          ask: 'What do the fantasy particles look like early on, and later? What are the filters?',
          limits:
            'Independent pixels give −25.2 nats; a 64-16 RBM reaches about −18.2 to −18.5 after long training (boltzlab reproduce statistics).',
        },
      },
      {
        title: 'Challenge: learn the digits',
        text: `Keep learning until the test log-likelihood rises above −21 nats per image. Now ${live('testLogLikelihood', 2)} after ${live('updates', 0)} updates.`,
        views: ['fantasy', 'likelihood'],
        scene: {
          mode: 'restricted',
          seed: 1,
          rbm: {
            dataset: 'digits8',
            hidden: 16,
            statistics: 'persistent',
            steps: 1,
            particles: 100,
            batch: 100,
            rate: 0.05,
            momentum: 0.5,
          },
          run: true,
          controls: ['rbm-learning', 'rbm-options'],
          highlight: 'likelihood',
        },
        challenge: {
          goal: 'test ln p(v) above −21 nats per image',
          check: (history) => above(history.at(-1).testLogLikelihood, -21),
          judges: { label: 'test ln p(v)', read: (r) => r.testLogLikelihood },
        },
        notes: {
          ask: 'Try CD-1 instead of persistent particles: which climbs faster, and which ends higher?',
          limits: 'Each point is computed for the machine as it was when the point started, a slice per frame.',
        },
      },
      {
        title: 'Completion: dream the missing half',
        text: 'A classic test of a generative machine: clamp the top half of a test digit, let the free units settle, and compare the completion with the original. Switch between the clamped and the free phase to see the machine forget the clamp.',
        views: ['completion'],
        scene: {
          mode: 'restricted',
          seed: 1,
          rbm: {
            dataset: 'digits8',
            hidden: 16,
            statistics: 'persistent',
            steps: 1,
            particles: 100,
            batch: 100,
            rate: 0.05,
            momentum: 0.5,
          },
          run: true,
          // The completion view is drawn by a completion run: one starts on the first test digit.
          complete: true,
          controls: ['completion'],
          highlight: 'completion',
        },
        notes: {
          ask: 'Which digits are completed wrongly, and why those?',
          limits: 'Completion samples p(rest | clamped half); an untrained machine completes with noise.',
        },
      },
    ],
  },

  {
    title: 'Pattern memory',
    goals: [
      'see how Hebb’s rule makes each stored picture a valley of the energy',
      'recall a stored picture from a corrupted cue by energy descent, and at T > 0',
      'predict how many pictures a network of N units can hold',
    ],
    steps: [
      {
        title: 'Hebb’s rule digs valleys',
        text: `Five random pictures, 10 × 10 pixels of ±1, are stored in one network of N = 100 units by Hebb’s rule:${HEBB}Each stored picture ξ<sup>μ</sup> lowers its own energy E = −Σ<sub>i&lt;j</sub> w<sub>ij</sub>s<sub>i</sub>s<sub>j</sub> to about −N/2: it sits in a valley. The state shown is picture 0 itself; E = ${live('memoryEnergy', 2)}.`,
        views: ['memory-state', 'memory-overlaps', 'memory-energy'],
        scene: memory({
          memory: { width: 10, height: 10, patterns: 5, state: { cue: 0, flip: 0 } },
          controls: ['memory-patterns'],
        }),
        notes: {
          ask: 'Why does the weight between two pixels grow when they agree in most pictures?',
          limits:
            'Random pictures are nearly orthogonal; alike pictures (the digits) share strokes, their valleys merge, and Hebb’s rule cannot hold them apart (lesson 13).',
        },
      },
      {
        title: 'Corrupt and recall',
        text: `Picture 0 with a fifth of its pixels flipped is the cue. At T = 0 each tick sets one pixel to the sign of its field h<sub>i</sub> = Σ<sub>j</sub> w<sub>ij</sub>s<sub>j</sub>, which never raises the energy: watch E fall on the trace, the overlap m<sup>0</sup> = ${live('cueOverlap', 3)} climb, and the name of the state once it lands.`,
        views: ['memory-state', 'memory-overlaps', 'memory-energy'],
        scene: memory({
          memory: { width: 10, height: 10, patterns: 5, state: { cue: 0, flip: 0.2 } },
          run: true,
          speed: 1,
          controls: ['memory-cue', 'memory-recall'],
          highlight: 'memory-state',
        }),
        notes: {
          ask: 'Why can the energy never rise at T = 0? What does one tick do to E?',
          limits: 'A tie (a field of exactly 0) is broken by a fair coin, which leaves E unchanged.',
        },
      },
      {
        title: 'Predict: half of it hidden',
        text: 'Now the lower half of picture 0’s rows is hidden (set to −1), and recall starts from that.',
        views: ['memory-state', 'memory-overlaps', 'memory-energy'],
        scene: memory({
          memory: { width: 10, height: 10, patterns: 5, state: { cue: 0, hide: 0.5 } },
          speed: 8,
          controls: ['memory-recall'],
        }),
        predict: {
          question: 'After recall at T = 0, the overlap m⁰ with picture 0 will be…',
          choices: [
            { label: '1: the whole picture comes back', range: [0.99, 1] },
            { label: 'between 0.5 and 0.99: most of it', range: [0.5, 0.99] },
            { label: 'below 0.5: another valley wins', range: [-1, 0.5] },
          ],
          measure: { label: 'm⁰', read: (r) => r.cueOverlap, after: { recall: true } },
          explain:
            'The cue starts at overlap about ½ (the visible half agrees, the hidden half contributes about 0), but the visible half alone still points the fields to picture 0: with five random pictures in 100 pixels its valley is wide, and the descent fills in the rest. Alike pictures would compete for the same half.',
        },
        notes: {
          ask: 'How much can be hidden before another valley wins? Try a mask of 0.7 or 0.9.',
          limits: 'One seeded run; Replay gives the same cue, New run another.',
        },
      },
      {
        title: 'Recall at T > 0',
        text: `With T = 0.3 each tick is the heat bath, P(s<sub>i</sub> = +1) = 1/(1 + e<sup>−2h<sub>i</sub>/T</sup>): the energy can rise now, and the state wanders near the valley’s floor. m<sup>0</sup> = ${live('cueOverlap', 3)}.`,
        views: ['memory-state', 'memory-overlaps', 'memory-energy'],
        scene: memory({
          memory: { width: 10, height: 10, patterns: 5, state: { cue: 0, flip: 0.1 }, temperature: 0.3 },
          run: true,
          speed: 64,
          controls: ['memory-recall'],
          highlight: 'memory-recall',
        }),
        notes: {
          ask: 'Raise T step by step: at what temperature does the picture dissolve?',
          limits: 'At T > 0 the recall never stops by itself: pause it.',
        },
      },
      {
        title: 'Predict: how many pictures fit?',
        text: 'Store P random pictures of N = 100 pixels, recall each from itself at T = 0, and plot the mean final overlap against α = P/N. The dashed line is α<sub>c</sub> ≈ 0.138, where Amit, Gutfreund & Sompolinsky found Hebb’s memory breaks as N → ∞ (≈ 0.14 in 1985; 0.138 in their 1987 analysis).',
        views: ['memory-capacity'],
        scene: memory({
          memory: { width: 10, height: 10, patterns: 5, state: { cue: 0, flip: 0.1 } },
          capacity: { units: 100, runs: 3, starts: 0, start: false },
          controls: ['memory-capacity'],
        }),
        predict: {
          question: 'The first α at which the mean overlap falls below 0.9 is…',
          choices: [
            { label: 'below 0.08', range: [0, 0.08] },
            { label: 'between 0.08 and 0.22, near α_c', range: [0.08, 0.22] },
            { label: 'above 0.22', range: [0.22, 1] },
          ],
          measure: { label: 'α where recall breaks', read: (r) => r.capacityBreak, after: { capacity: true } },
          explain:
            'Each stored picture adds crosstalk to every field, a noise of variance about α; past α_c the noise beats the signal and recall ends far from the pattern. At N = 100 the fall is smeared around α_c (docs/memory.md has N = 500).',
        },
        notes: {
          ask: 'Why does the curve not drop to 0 above α_c?',
          limits: 'Few runs per point at N = 100: the error bars are wide, and finite N smears the break.',
        },
      },
      {
        title: 'Challenge: add pictures until recall breaks',
        text: `Eight random pictures of 100 pixels (α = ${live('memoryAlpha', 2)}). Press “Add a pattern and recall”: one more picture is stored, picture 0 is cued with 10 % flipped and recalled. Go on until the recall of picture 0 fails (m<sup>0</sup> = ${live('cueOverlap', 3)} below 0.9 at a fixed point).`,
        views: ['memory-state', 'memory-overlaps', 'memory-energy'],
        scene: memory({
          memory: { width: 10, height: 10, patterns: 8, state: { cue: 0, flip: 0.1 } },
          speed: 64,
          controls: ['memory-patterns', 'memory-cue', 'memory-recall'],
          highlight: 'memory-patterns',
        }),
        challenge: {
          goal: 'recall of picture 0 fails: a fixed point with m⁰ < 0.9 after adding pictures',
          check: (history) => {
            const r = history.at(-1);
            return (
              r.memoryReady &&
              centre(r.memoryPatterns) > 8 &&
              r.memoryStable === true &&
              !r.memoryRecalling &&
              centre(r.cueOverlap) < 0.9
            );
          },
          judges: { label: 'α = P/N', read: (r) => r.memoryAlpha },
        },
        notes: {
          ask: 'Where did it break, against α_c ≈ 0.138? Would another seed break at the same P?',
          limits: 'One picture’s recall is one sample: the capacity curve averages many.',
        },
      },
    ],
  },
  {
    title: 'Unlearning removes false memories',
    goals: [
      'meet the valleys Hebb’s rule digs by accident: mixtures and spin-glass states',
      'see Hopfield, Feinstein & Palmer’s unlearning raise them',
      'compare with the Boltzmann rule, which unlearns as much as the patterns need',
    ],
    steps: [
      {
        title: 'False memories',
        text: 'Five random pictures of 100 pixels, stored by Hebb’s rule; the state starts at random and descends at T = 0. Watch where it lands (the name above the picture): a stored picture, its mirror image −ξ<sup>μ</sup> (which Hebb’s rule stores with it), or a valley nobody stored: mixtures such as sign(ξ¹ + ξ² + ξ³) and spin-glass states. Press Random state and Recall again.',
        views: ['memory-state', 'memory-overlaps', 'memory-energy'],
        scene: memory({
          memory: { width: 10, height: 10, patterns: 5, state: 'random' },
          run: true,
          speed: 8,
          controls: ['memory-cue', 'memory-recall'],
          highlight: 'memory-state',
        }),
        notes: {
          ask: 'Press Random state and Recall a few times: how often does it land on a stored picture?',
          limits: 'The mirror image −ξ has the same energy as ξ: the rule cannot tell them apart.',
        },
      },
      {
        title: 'Count where random starts end',
        text: `The capacity curve for Hebb’s rule at N = 100, with 10 random starts per run relaxed at T = 0. At α near 0.1 the share of random starts that found a stored picture or its mirror: ${live('foundFromRandom', 2)}. Recall breaks at α ≈ ${live('capacityBreak', 2)}.`,
        views: ['memory-capacity'],
        scene: memory({
          memory: { width: 10, height: 10, patterns: 5, state: 'random' },
          capacity: { units: 100, runs: 2, starts: 10 },
          controls: ['memory-capacity'],
        }),
        notes: {
          ask: 'Where do the other random starts go?',
          limits: 'Two runs per point: a rough curve, quickly.',
        },
      },
      {
        title: 'Predict: Hebb + unlearning',
        text: 'Unlearning (Hopfield, Feinstein & Palmer 1983): after Hebb, N/2 times, relax a random state at T = 0 to a valley s* and raise it a little, w<sub>ij</sub> ← w<sub>ij</sub> − (ε/N) s*<sub>i</sub>s*<sub>j</sub> with ε = 0.01. The big spurious valleys are found most often, so they are raised most.',
        views: ['memory-capacity'],
        scene: memory({
          memory: { width: 10, height: 10, rule: 'unlearning', patterns: 5, state: 'random' },
          capacity: { units: 100, runs: 2, starts: 10, start: false },
          controls: ['memory-capacity', 'memory-setup'],
        }),
        predict: {
          question: 'With unlearning, the first α at which recall breaks (mean overlap below 0.9) is…',
          choices: [
            { label: 'below 0.1: unlearning hurts', range: [0, 0.1] },
            { label: 'between 0.1 and 0.2', range: [0.1, 0.2] },
            { label: '0.2 or more: well beyond α_c', range: [0.2, 1] },
          ],
          measure: { label: 'α where recall breaks', read: (r) => r.capacityBreak, after: { capacity: true } },
          explain:
            'At N = 500 unlearning holds a mean overlap above 0.95 up to α = 0.18, where Hebb has fallen to 0.68 (docs/memory.md): raising the spurious valleys leaves the stored ones deeper by comparison. A fixed dose (N/2 steps of ε = 0.01) helps only so far.',
        },
        notes: {
          ask: 'What would too much unlearning do?',
          limits:
            'The dose is fixed here (N/2 steps, ε = 0.01); Hopfield et al. warned that too much erases the memories too.',
        },
      },
      {
        title: 'Predict: the Boltzmann rule',
        text: 'The Boltzmann rule with no hidden units, Δw<sub>ij</sub> = η(⟨s<sub>i</sub>s<sub>j</sub>⟩<sub>data</sub> − ⟨s<sub>i</sub>s<sub>j</sub>⟩<sub>free</sub>): Hebb’s term, minus unlearning measured by free chains at T = 1, repeated until the model’s correlations match the pictures’.',
        views: ['memory-capacity'],
        scene: memory({
          memory: { width: 10, height: 10, rule: 'boltzmann', patterns: 5, state: 'random' },
          capacity: { units: 100, runs: 1, starts: 20, start: false },
          controls: ['memory-capacity', 'memory-setup'],
        }),
        predict: {
          question: 'At α near 0.1, the share of random starts that end at a stored picture or its mirror will be…',
          choices: [
            { label: 'below 0.1', range: [0, 0.1] },
            { label: 'between 0.1 and 0.5', range: [0.1, 0.5] },
            { label: 'above 0.5', range: [0.5, 1] },
          ],
          measure: { label: 'share of random starts found', read: (r) => r.foundFromRandom, after: { capacity: true } },
          explain:
            'The free phase finds the valleys the model has and raises those the data do not have, so the stored pictures become the wide valleys: at N = 500, α = 0.1, nearly half the random starts find one (46 of 100; Hebb none of 200, docs/memory.md).',
        },
        notes: {
          ask: 'Compare the capacity curves of the three rules: which holds beyond α_c?',
          limits: 'Each store takes 200 updates of 20 chains, so the curve is slower than Hebb’s.',
        },
      },
      {
        title: 'Alike pictures: the digits',
        text: `The ten 8 × 8 digits by Hebb’s rule, and the state is digit 1 itself, uncorrupted. Recall: it slides away (m¹ = ${live('cueOverlap', 3)}). Digits share strokes, so their crosstalk is far larger than random pictures’: no digit is a valley at all. Now choose the Boltzmann rule in the menu, cue digit 1 again and recall.`,
        views: ['memory-state', 'memory-overlaps', 'memory-energy'],
        scene: memory({
          memory: { patterns: 'digits', state: { cue: 1, flip: 0 } },
          run: true,
          speed: 8,
          controls: ['memory-setup', 'memory-cue', 'memory-recall'],
          highlight: 'memory-setup',
        }),
        notes: {
          ask: 'Why does the Boltzmann rule hold the digits when Hebb’s rule cannot?',
          limits:
            'Hebb’s analysis (α_c ≈ 0.138) assumes random, uncorrelated pictures; real pictures are correlated, and the Boltzmann rule learns their correlations instead of adding them up.',
        },
      },
      {
        title: 'Challenge: beyond α_c',
        text: `Twenty random pictures in 100 pixels, α = ${live('memoryAlpha', 2)}, well past Hebb’s α<sub>c</sub>. Choose a storage rule that recalls picture 0 from its cue exactly (m<sup>0</sup> = ${live('cueOverlap', 3)}): pick it, Cue, Recall.`,
        views: ['memory-state', 'memory-overlaps', 'memory-energy'],
        scene: memory({
          memory: { width: 10, height: 10, patterns: 20, state: { cue: 0, flip: 0.1 } },
          speed: 64,
          controls: ['memory-setup', 'memory-cue', 'memory-recall'],
          highlight: 'memory-setup',
        }),
        challenge: {
          goal: 'picture 0 recalled exactly (m⁰ = 1 at a fixed point) at α = 0.2',
          check: (history) => {
            const r = history.at(-1);
            return (
              r.memoryReady &&
              centre(r.memoryAlpha) >= 0.2 &&
              r.memoryStable === true &&
              !r.memoryRecalling &&
              centre(r.cueOverlap) >= 0.999
            );
          },
          judges: { label: 'm⁰', read: (r) => r.cueOverlap },
        },
        notes: {
          ask: 'Why does the Boltzmann rule, which never saw a cue, recall better?',
          limits: 'The Boltzmann rule here has no hidden units: it can only match pairwise correlations.',
        },
      },
    ],
  },
  {
    title: 'Handwriting: a machine learns MNIST',
    goals: [
      'see what a restricted machine of 784 visible and 100 hidden units is, on 28 × 28 digits',
      'watch its filters turn into pen strokes and its free chains into digits',
      'read the test log-likelihood by AIS with its error bar, against the published −86.34 nats',
      'learn the labels too: ask for a chosen digit, classify a drawn one, complete half of one',
    ],
    steps: [
      {
        title: 'Twenty-eight by twenty-eight',
        text: `MNIST: 60 000 training and 10 000 test digits, handwritten, 28 × 28 pixels, each pixel made 0 or 1 (on with probability grey/255, as Salakhutdinov &amp; Murray did). A restricted machine sees an image on its 784 visible units v and explains it with 100 hidden units h:${m('<mi>E</mi><mo>(</mo><mi>v</mi><mo>,</mo><mi>h</mi><mo>)</mo><mo>=</mo><mo>−</mo><msup><mi>a</mi><mo>⊤</mo></msup><mi>v</mi><mo>−</mo><msup><mi>b</mi><mo>⊤</mo></msup><mi>h</mi><mo>−</mo><msup><mi>v</mi><mo>⊤</mo></msup><mi>W</mi><mi>h</mi>')}W has 784 × 100 = 78 400 weights. Rows 1 and 3 show ten test images, the row below each what the untrained machine makes of them; the filters (each hidden unit’s 784 weights as a picture) are still small random noise.`,
        views: ['mnist-reconstructions', 'mnist-filters'],
        scene: mnist({ controls: ['rbm-learning'] }),
        notes: {
          ask: 'How many numbers does the machine learn, and how many images does it see per update (batch 100)?',
          limits:
            'The page loads the 6.9 MB MNIST file once (then from the browser’s cache); a classroom without network needs it loaded once beforehand.',
        },
      },
      {
        title: 'Run: the filters become pen strokes',
        text: `Press Run learning. Each update takes 100 training images, one step of contrastive divergence (CD-1), and moves W by ε = 0.1 with momentum 0.5. Within a few hundred updates the filters stop being noise and become strokes and blobs: pieces of digits, each hidden unit a detector for one of them. Updates: ${live('updates', 0)}.`,
        views: ['mnist-filters', 'mnist-reconstructions'],
        scene: mnist({ continue: true, controls: ['rbm-learning'], highlight: 'rbm-learning' }),
        notes: {
          ask: 'Why does a filter look like a stroke, and why does each have a positive and a negative part?',
          limits: 'Each filter is drawn at its own contrast, so a small filter looks as strong as a large one.',
        },
      },
      {
        title: 'Free chains',
        text: `The learning rule compares the data with the machine’s own samples: Δw<sub>ij</sub> = ε(⟨v<sub>i</sub>h<sub>j</sub>⟩<sub>data</sub> − ⟨v<sub>i</sub>h<sub>j</sub>⟩<sub>model</sub>). With CD-1 the model’s side comes from chains that start at the batch’s images and take one block Gibbs step, so they still look like the data. Choose persistent chains in the options and apply them: the chains then run on from update to update, fantasy particles as in lesson 11, and wander to whatever the machine believes digits look like. Updates: ${live('updates', 0)}.`,
        views: ['mnist-chains', 'mnist-filters'],
        scene: mnist({
          continue: true,
          run: true,
          controls: ['rbm-learning', 'rbm-options'],
          highlight: 'rbm-options',
        }),
        notes: {
          ask: 'Why do CD-1’s chains look like the training digits even when the machine is poor?',
          limits:
            'Persistent chains need a small learning rate to keep up with the weights (lesson 11); at ε = 0.1 they may lag.',
        },
      },
      {
        title: 'Predict: the test log-likelihood',
        text: `How good is the machine? Its mean ln p(v) on test images, where p(v) = Σ<sub>h</sub>e<sup>−E(v,h)</sup>/Z. The sum over h is easy, but Z sums over 2<sup>100</sup> hidden states: it is estimated by annealed importance sampling (AIS), 32 runs from the base-rate machine (whose Z is exact) to this one through a ladder of intermediate machines. The error bar is one standard error of ln Z over those runs. A fresh 784-100 machine, points every 150 updates on 1000 test images, in a second worker: now ${live('testLogLikelihood', 2)} nats.`,
        views: ['mnist-likelihood', 'mnist-filters'],
        scene: mnist({ controls: ['rbm-learning'] }),
        predict: {
          question: 'After 300 updates (half an epoch), the test ln p(v) per image will be…',
          choices: [
            { label: `above −${MNIST_BANDS[0]} nats`, range: [-MNIST_BANDS[0], 0] },
            { label: `between −${MNIST_BANDS[1]} and −${MNIST_BANDS[0]}`, range: [-MNIST_BANDS[1], -MNIST_BANDS[0]] },
            { label: `below −${MNIST_BANDS[1]}: hardly better than the start`, range: [-Infinity, -MNIST_BANDS[1]] },
          ],
          measure: {
            label: 'test ln p(v), the first point from update 300',
            read: (r) => r.testLogLikelihood,
            after: { updates: 300 },
          },
          explain:
            'Seed 1 rises from −200.3 nats per image at update 0 to −145.4 ± 0.3 at update 300 (−139.4 ± 0.9 at 450): in half an epoch CD-1 learns the pixels’ base rates and the first pen strokes, about 55 nats per image. The error bar is the spread of AIS’s runs only: with too few intermediate machines AIS underestimates ln Z, which flatters ln p(v).',
        },
        notes: {
          ask: 'Why is ln Z the hard part, and why is the error bar so small next to the change?',
          limits:
            'AIS tends to underestimate ln Z when too few intermediate machines are used, which makes ln p(v) look better than it is; the bar measures spread, not that bias.',
        },
      },
      {
        title: 'Generating digits',
        text: 'Twenty chains start from random images and take 200 block Gibbs steps in the machine as it is then; each picture is p(v | h) of its chain’s last step. An untrained machine gives faint blurs; a trained one, strokes that join into digit-like shapes. The machine goes on learning here: press Generate again every half minute and watch the digits sharpen.',
        views: ['mnist-gallery', 'mnist-filters'],
        scene: mnist({
          continue: true,
          run: true,
          gallery: { count: 20, steps: 200 },
          controls: ['rbm-learning', 'mnist-generate'],
          highlight: 'mnist-generate',
        }),
        notes: {
          ask: 'Which digits does it generate most, and why might some never appear?',
          limits:
            '200 steps from random images may not reach the machine’s equilibrium: mixing between digits is slow.',
        },
      },
      {
        title: 'Ask for a digit',
        text: `A fresh machine now learns the labels too: ten more visible units y, one of them on (the digit’s label), joined to the same 100 hidden units by a 10 × 100 matrix U:${m('<mi>E</mi><mo>(</mo><mi>v</mi><mo>,</mo><mi>y</mi><mo>,</mo><mi>h</mi><mo>)</mo><mo>=</mo><mi>E</mi><mo>(</mo><mi>v</mi><mo>,</mo><mi>h</mi><mo>)</mo><mo>−</mo><msup><mi>c</mi><mo>⊤</mo></msup><mi>y</mi><mo>−</mo><msup><mi>y</mi><mo>⊤</mo></msup><mi>U</mi><mi>h</mi>')}with E(v, h) the image machine’s energy of the first step. Each training image comes with its label, and CD-1 learns their joint distribution. To ask for a 3, clamp the label: y is held at “3” through all 200 Gibbs steps while the image units and the hidden units run free, so once a chain has mixed it samples p(v | y = 3). Under the pictures the machine reads its own images back: for each it computes p(y | v) exactly (ten free energies, with the hidden units summed out) and names the most probable digit. Do not expect twenty 3s from this small CD-1 machine: ten label units pull on the hidden units far less than 784 pixels do, and 200 steps from random images often settle in another digit’s valley, which the read-back shows. Type another digit in the Digit box and press Generate; the machine keeps learning meanwhile. Updates: ${live('updates', 0)}. This small machine (784-100 plus labels) learns something within a minute; the page’s own default, 784-500, learns better.`,
        views: ['mnist-gallery-read', 'mnist-filters'],
        scene: mnist({
          labels: true,
          run: true,
          gallery: { count: 20, steps: 200, label: 3 },
          controls: ['rbm-learning', 'mnist-generate'],
          highlight: 'mnist-generate',
        }),
        notes: {
          ask: 'Before reading the line under the pictures: how many of the twenty will the machine itself call a 3? Which digits does it confuse a 3 with, and do its own pictures show why?',
          limits:
            'Reading its own images back tests only that the machine agrees with itself. Measured 2026-11-28 (this step in Chromium, seed 1, weight decay 0.0002, load 3 on two cores): with 3 clamped it read its twenty images as 0s near update 1400 and as 8s and 6s (9 and 7 of the 20) near update 10 300, while it gave the pad’s test 7 a probability of 0.999.',
        },
      },
      {
        title: 'Draw, classify, complete',
        text: `The pad holds a test image, and the bars are p(y | pad) for the ten digits, exact, recomputed as you draw: draw on the pad, erase it, or take another test digit. Complete has clamped the pad’s top half and lets the bottom half, the label and the hidden units settle by 100 block Gibbs steps; the picture is p(v | h) of the last step, the clamped pixels as they are. Release the clamps to let the whole image run free and watch whether the machine keeps the digit or drifts to another one; clamp again to hold the top half. Try the left half, or only the pixels you drew, as the clamped part. Updates: ${live('updates', 0)}.`,
        views: ['mnist-pad', 'mnist-bars', 'mnist-completion'],
        scene: mnist({
          labels: true,
          continue: true,
          run: true,
          pad: { test: 0, mask: 'top', steps: 100 },
          controls: ['mnist-pad-test', 'mnist-pad-complete'],
          highlight: 'mnist-pad-complete',
        }),
        notes: {
          ask: 'Predict first: with only the top half clamped, will the completed digit keep the label the bars gave the whole image? And once the clamps are released?',
          limits:
            'Completion and the free phase are samples: the same top half completes differently each time, and a free chain forgets its start only slowly.',
        },
      },
      {
        title: `Challenge: above −${MNIST_GOAL} nats`,
        text: `A fresh machine learns; a point every 150 updates. Get the test ln p(v) above −${MNIST_GOAL} nats per image by two standard errors: now ${live('testLogLikelihood', 2)} (the point of update ${live('likelihoodUpdate', 0)}; ${live('updates', 0)} updates learned). Watch the curve after it: with CD-1 at ε = 0.1 it climbs for a few thousand updates and then sinks again, since CD-1 is not the gradient of ln p(v). For scale: Salakhutdinov &amp; Murray’s machine of 500 hidden units, trained long by CD-25, reached −86.34 nats (docs/salakhutdinov2008.md).`,
        views: ['mnist-likelihood', 'mnist-filters'],
        scene: mnist({ run: true, controls: ['rbm-learning', 'rbm-options'], highlight: 'rbm-learning' }),
        challenge: {
          goal: `test ln p(v) above −${MNIST_GOAL} nats per image (by two standard errors)`,
          check: (history) => above(history.at(-1).testLogLikelihood, -MNIST_GOAL),
          judges: { label: 'test ln p(v)', read: (r) => r.testLogLikelihood },
        },
        notes: {
          ask: 'Why can ln p(v) fall while CD-1 keeps learning? What might hold it up: a smaller rate, more Gibbs steps, persistent chains?',
          limits:
            'Each point is the machine at its update, scored on the first 1000 test images, not all 10 000; a slow machine scores fewer of the points, since only the newest snapshot waits.',
        },
      },
    ],
  },
];
