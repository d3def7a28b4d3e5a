// The guided lessons: short sequences of cards with formulas in MathML, each with a
// set-up that configures the simulator through the modes' own checked setters (so every
// value still goes through the engine's checks). panel.js shows them.

const m = (body) => `<math display="block">${body}</math>`;

// A running lattice of this model, side and temperature.
function lattice(app, model, size, temperature) {
  app.show('lattice');
  app.lattice.setUp({ model, size, temperature });
}

// A new machine run on this dataset and method.
function machine(app, dataset, method) {
  app.show('machine');
  app.machine.setUp({ dataset, method });
}

export const LESSONS = [
  {
    title: 'Energy and temperature on the Ising lattice',
    says: 'a 64×64 ferromagnet at T = 3, running',
    cards: [
      `Each spin s<sub>i</sub> = ±1 sits on a square lattice. The energy counts unhappy neighbours:${m('<mi>E</mi><mo>=</mo><mo>−</mo><mi>J</mi><munder><mo>∑</mo><mrow><mo>⟨</mo><mi>i</mi><mi>j</mi><mo>⟩</mo></mrow></munder><msub><mi>s</mi><mi>i</mi></msub><msub><mi>s</mi><mi>j</mi></msub><mo>−</mo><mi>h</mi><munder><mo>∑</mo><mi>i</mi></munder><msub><mi>s</mi><mi>i</mi></msub>')}`,
      `At temperature T a state has probability${m('<mi>P</mi><mo>(</mo><mi>s</mi><mo>)</mo><mo>=</mo><mfrac><msup><mi>e</mi><mrow><mo>−</mo><mi>E</mi><mo>(</mo><mi>s</mi><mo>)</mo><mo>/</mo><mi>T</mi></mrow></msup><mi>Z</mi></mfrac>')}High T: disorder wins. Low T: the energy wins and the spins align.`,
      'Set it up, then drag the temperature slider down and watch E/N and M/N in the trace.',
    ],
    setup: (app) => lattice(app, 'ferromagnet', 64, 3),
  },
  {
    title: 'The critical point and Onsager',
    says: 'a 128×128 ferromagnet at T = T_c',
    cards: [
      `Onsager solved the square lattice exactly (1944). The order vanishes at${m('<msub><mi>T</mi><mi>c</mi></msub><mo>=</mo><mfrac><mn>2</mn><mrow><mi>ln</mi><mo>(</mo><mn>1</mn><mo>+</mo><msqrt><mn>2</mn></msqrt><mo>)</mo></mrow></mfrac><mo>≈</mo><mn>2.269</mn>')}`,
      `Below T_c the magnetisation is${m('<mi>m</mi><mo>=</mo><msup><mrow><mo>(</mo><mn>1</mn><mo>−</mo><msup><mi>sinh</mi><mrow><mo>−</mo><mn>4</mn></mrow></msup><mn>2</mn><mi>K</mi><mo>)</mo></mrow><mrow><mn>1</mn><mo>/</mo><mn>8</mn></mrow></msup>')}At T_c clusters of every size appear. Run the temperature sweep to compare with Onsager's curves.`,
    ],
    setup: (app) => lattice(app, 'ferromagnet', 128, 2.269),
  },
  {
    title: 'Quench and coarsening',
    says: 'a 256×256 ferromagnet quenched from random spins to T = 1',
    cards: [
      `A sudden cooling (a quench) from T = ∞ to T = 1 &lt; T_c: domains of up and down spins form and grow. Their size grows like${m('<mi>L</mi><mo>(</mo><mi>t</mi><mo>)</mo><mo>∼</mo><msup><mi>t</mi><mrow><mn>1</mn><mo>/</mo><mn>2</mn></mrow></msup>')}`,
      'The energy per spin falls as the walls between domains shorten.',
    ],
    setup: (app) => {
      lattice(app, 'ferromagnet', 256, 1);
      app.lattice.reset('random');
    },
  },
  {
    title: 'Frustration in spin glasses',
    says: 'a 16×16 ±J spin glass at T = 1',
    cards: [
      `With random couplings J<sub>ij</sub> = ±1 a plaquette whose product of bonds is negative cannot satisfy all four bonds:${m('<munder><mo>∏</mo><mi>□</mi></munder><msub><mi>J</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub><mo>&lt;</mo><mn>0</mn>')}`,
      'Frustrated plaquettes are drawn in yellow in the weights view. The ground state is highly degenerate, and the dynamics slow down.',
    ],
    setup: (app) => lattice(app, 'spin-glass-pm', 16, 1),
  },
  {
    title: 'Learning without hidden units: the 10-pixel images',
    says: 'the Boltzmann machine on the six 10-pixel images, stochastic',
    cards: [
      `Boltzmann learning compares two phases:${m('<mi>Δ</mi><msub><mi>w</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub><mo>=</mo><mi>ε</mi><mo>(</mo><msub><mrow><mo>⟨</mo><msub><mi>s</mi><mi>i</mi></msub><msub><mi>s</mi><mi>j</mi></msub><mo>⟩</mo></mrow><mtext>clamped</mtext></msub><mo>−</mo><msub><mrow><mo>⟨</mo><msub><mi>s</mi><mi>i</mi></msub><msub><mi>s</mi><mi>j</mi></msub><mo>⟩</mo></mrow><mtext>free</mtext></msub><mo>)</mo>')}`,
      'In the clamped phase the visible units show a training image; in the free phase the machine runs on its own. Watch the phase and the pattern in the status line, and the two correlation maps.',
    ],
    setup: (app) => machine(app, 'pixels-10', 'stochastic'),
  },
  {
    title: 'Hidden units: the 4-2-4 encoder',
    says: 'the 4-2-4 encoder, stochastic, with the paper’s protocol',
    cards: [
      `Two groups of four visible units talk only through two hidden units. Learning succeeds when the hidden units give each of the four patterns its own code. The rule minimises${m('<mi>G</mi><mo>=</mo><munder><mo>∑</mo><mi>v</mi></munder><msub><mi>p</mi><mtext>data</mtext></msub><mo>(</mo><mi>v</mi><mo>)</mo><mi>ln</mi><mfrac><mrow><msub><mi>p</mi><mtext>data</mtext></msub><mo>(</mo><mi>v</mi><mo>)</mo></mrow><mrow><mi>p</mi><mo>(</mo><mi>v</mi><mo>)</mo></mrow></mfrac>')}`,
      'Run learning and watch the fraction of codes solved in the learning curve.',
    ],
    setup: (app) => machine(app, '4-2-4', 'stochastic'),
  },
  {
    title: 'The normalising constant four ways',
    says: 'the 4-2-4 encoder and the ln Z panel computed',
    cards: [
      `The normalising constant${m('<mi>Z</mi><mo>=</mo><munder><mo>∑</mo><mi>s</mi></munder><msup><mi>e</mi><mrow><mo>−</mo><mi>E</mi><mo>(</mo><mi>s</mi><mo>)</mo><mo>/</mo><mi>T</mi></mrow></msup>')}has 2<sup>n</sup> terms. Enumeration is exact for small n; the sampled sum and mean field are lower bounds; AIS estimates it with an error bar.`,
    ],
    setup: (app) => {
      machine(app, '4-2-4', 'stochastic');
      app.machine.computeLogZ();
    },
  },
  {
    title: 'The deterministic (mean-field) machine against the stochastic one',
    says: 'the 4-2-4 encoder learned by the mean-field machine',
    cards: [
      `Peterson and Anderson (1987) replace sampled correlations by mean-field products:${m('<msub><mi>m</mi><mi>i</mi></msub><mo>=</mo><mi>tanh</mi><mo>(</mo><mo>(</mo><munder><mo>∑</mo><mi>j</mi></munder><msub><mi>w</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub><msub><mi>m</mi><mi>j</mi></msub><mo>+</mo><msub><mi>θ</mi><mi>i</mi></msub><mo>)</mo><mo>/</mo><mi>T</mi><mo>)</mo>')}`,
      'It learns the encoder in far fewer cycles. Switch the method to compare with the stochastic machine.',
    ],
    setup: (app) => machine(app, '4-2-4', 'mean-field'),
  },
];
