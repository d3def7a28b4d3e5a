// The lecture's clicker keys as a test presses them: a key that moves on pages a step's text
// longer than its column before it opens the next step (www/lessons/lecture.js, turnText).
import { expect } from './fixtures.js';

// The text column's scroll position, the text below its foot, and its "more" mark.
export const column = (page) =>
  page.evaluate(() => {
    const lesson = document.getElementById('lesson');
    return {
      step: lesson.dataset.step,
      top: lesson.scrollTop,
      below: lesson.scrollHeight - lesson.clientHeight - lesson.scrollTop,
      more: lesson.classList.contains('more-below'),
    };
  });

// Presses a clicker key that moves on (PageDown, → or Space) until the step changes: while the
// step's text has more below its column's foot, each press pages the text down (the step
// stays, the column scrolls, and the "more" mark says so); the press at the end of the text
// opens the next step. Returns how many presses paged the text. `press`: how the key is
// pressed (on the focused element by default).
export async function moveOn(page, key, press = (k) => page.keyboard.press(k)) {
  for (let pages = 0; pages < 30; pages++) {
    // The mark follows the scrolling within a frame or two.
    await expect
      .poll(async () => {
        const { more, below } = await column(page);
        return more === below >= 2;
      }, 'the "more" mark where the text has more below, and only there')
      .toBe(true);
    const before = await column(page);
    await press(key);
    // The press either pages the text down or opens the next step.
    await expect
      .poll(async () => {
        const after = await column(page);
        return after.step !== before.step || after.top > before.top;
      }, `${key} on step ${before.step} pages its text or opens the next step`)
      .toBe(true);
    const after = await column(page);
    if (after.step !== before.step) {
      // Only from the end of the text. (The converse is not asserted: a live read-out in the
      // text, such as a challenge's progress, may grow it between the reading and the press.)
      expect(before.below, `${key} left step ${before.step} with its text not read to the end`).toBeLessThan(2);
      return pages;
    }
  }
  throw new Error('the text never ended');
}
