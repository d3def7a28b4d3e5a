// @ts-check
// Where the MNIST run is kept: one record in IndexedDB ({bytes: MnistLab.save's BZMNRUN file,
// updates, hidden, seed, labels, at}). The learning worker writes it (mnist_worker.js); the
// page reads it only when that worker has stopped, to export the last kept run (fault.js).

const DB = 'boltzlab-mnist';
export const STORE = 'runs';
export const KEY = 'current';

/** @returns {Promise<IDBDatabase>} */
export function openRuns() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/**
 * The kept run's record, or null.
 * @param {IDBDatabase} database
 * @returns {Promise<any>}
 */
export function keptRecord(database) {
  return new Promise((resolve, reject) => {
    const request = database.transaction(STORE, 'readonly').objectStore(STORE).get(KEY);
    request.onsuccess = () => resolve(request.result ?? null);
    request.onerror = () => reject(request.error);
  });
}

/**
 * The name a saved run's file gets (the panel's "Save the run to a file" and the fault
 * overlay's export).
 * @param {number} hidden @param {boolean} labelled @param {number} updates
 */
export const runFileName = (hidden, labelled, updates) =>
  `boltzlab-mnist-784-${hidden}${labelled ? '-labels' : ''}-update-${updates}.bzmn`;
