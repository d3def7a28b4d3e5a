//! Two threads for one piece of work: the caller's and one persistent worker, so that an
//! update can split its products and elementwise loops in two halves without spawning a
//! thread each time.
//!
//! [`ThreadPair::join`] runs `here` on the calling thread and `there` on the worker and
//! returns when both are done, like `rayon::join`, but always on the same second thread,
//! which waits for work by spinning briefly (work comes every few hundred microseconds
//! during an update) and then parking. If the worker has not started `there` by the time
//! `here` is done (a machine busy with other work), the caller runs it itself, so a
//! split never costs much more than doing both halves in turn. The worker is started at the first join and
//! stopped when the pair is dropped.
//!
//! In wasm, std cannot start a thread. The build without atomics (the page's default) runs
//! both closures in turn on the caller's thread. The build with atomics and a shared memory
//! (the page when it is cross-origin isolated: `scripts/build_threads.sh`) gets its second
//! thread from the page: a Web Worker instantiates the same module on the same memory and
//! calls [`wasm_helper::serve`], which registers it and then serves every pair of the
//! instance, one join at a time (a join while another is under way, or before a helper is
//! registered, runs in turn). A panic on the helper is handed to the waiting caller, which
//! panics with its message, so the page's fault report names it.
//!
//! Neither closure sees the other's data: what each half computes, and so every bit of the
//! result, does not depend on whether the halves ran in parallel.

/// The caller's thread and one persistent worker thread (started on first use).
#[derive(Default)]
pub struct ThreadPair {
    #[cfg(not(target_arch = "wasm32"))]
    worker: Option<threaded::Worker>,
}

impl ThreadPair {
    /// A pair whose worker is not started yet.
    pub fn new() -> ThreadPair {
        ThreadPair::default()
    }

    /// Whether the worker thread is running (in wasm: whether a helper is registered).
    pub fn started(&self) -> bool {
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.worker.is_some()
        }
        #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
        {
            wasm_helper::registered()
        }
        #[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
        {
            false
        }
    }

    /// Runs `here` on this thread and `there` on the worker, and returns both results
    /// once both have finished. A panic in either is resumed here after both finished.
    pub fn join<A, B>(
        &mut self,
        here: impl FnOnce() -> A,
        there: impl FnOnce() -> B + Send,
    ) -> (A, B)
    where
        B: Send,
    {
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.worker
                .get_or_insert_with(threaded::Worker::start)
                .join(here, there)
        }
        #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
        {
            wasm_helper::join(here, there)
        }
        #[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
        {
            let a = here();
            (a, there())
        }
    }
}

/// The threads an update may use in this process: natively 1 (the CLI and the library's
/// callers choose their own with `--threads` or `BatchTrainer::set_threads`); in wasm, 2 once
/// a helper thread is registered (the isolated page's threaded build), else 1.
pub fn page_threads() -> usize {
    #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
    {
        if wasm_helper::registered() { 2 } else { 1 }
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "atomics")))]
    {
        1
    }
}

impl Clone for ThreadPair {
    /// A clone gets its own worker, started when it is first used.
    fn clone(&self) -> ThreadPair {
        ThreadPair::new()
    }
}

impl std::fmt::Debug for ThreadPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadPair")
            .field("started", &self.started())
            .finish()
    }
}

/// The job slot shared by a caller and its second thread, and the waits of both: natively
/// for a spawned thread, in wasm for the helper the page starts.
#[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
mod threaded {
    use std::cell::UnsafeCell;
    use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
    use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
    use std::thread::{self, Thread};
    use std::time::Duration;

    /// How long a waiting thread (the worker for the next job, the caller for the worker's
    /// half) stays awake before it parks: longer than the gaps between the halves of one
    /// update, short enough not to hold a core between updates.
    #[cfg(not(target_arch = "wasm32"))]
    const SPIN: Duration = Duration::from_micros(200);

    /// For how much of [`SPIN`] it only spins; after that it yields the core at each look
    /// (so that on a busy machine, where the scheduler shares one slice between the
    /// process's threads, the other half's thread can run).
    #[cfg(not(target_arch = "wasm32"))]
    const PURE_SPIN: Duration = Duration::from_micros(20);

    /// In wasm (no clock in std, and a yield that does nothing) the worker waiting for a job
    /// spins for this many looks, about 100–300 µs at a few nanoseconds per look, and then
    /// parks.
    #[cfg(target_arch = "wasm32")]
    const SPIN_LOOKS: u32 = 1 << 16;

    /// The caller waiting for the worker's half spins far less (tens of µs) before it parks:
    /// with no yield, its spinning would hold the core the worker may be waiting for (a page
    /// on 2 cores runs more threads than that), and the worker wakes it when it is done.
    #[cfg(target_arch = "wasm32")]
    const CALLER_SPIN_LOOKS: u32 = 1 << 12;

    /// One waiting thread's looks: spin, then (natively) yield, then park.
    pub(super) struct Wait {
        #[cfg(not(target_arch = "wasm32"))]
        start: std::time::Instant,
        #[cfg(target_arch = "wasm32")]
        looks: u32,
        #[cfg(target_arch = "wasm32")]
        limit: u32,
    }

    impl Wait {
        /// The worker's wait for a job.
        pub(super) fn new() -> Wait {
            Wait {
                #[cfg(not(target_arch = "wasm32"))]
                start: std::time::Instant::now(),
                #[cfg(target_arch = "wasm32")]
                looks: 0,
                #[cfg(target_arch = "wasm32")]
                limit: SPIN_LOOKS,
            }
        }

        /// The caller's wait for the worker's half (natively the same as the worker's).
        pub(super) fn for_caller() -> Wait {
            Wait {
                #[cfg(target_arch = "wasm32")]
                limit: CALLER_SPIN_LOOKS,
                ..Wait::new()
            }
        }

        /// One look's wait (`park` is the parking to do).
        pub(super) fn pause(&mut self, park: impl FnOnce()) {
            #[cfg(not(target_arch = "wasm32"))]
            {
                let waited = self.start.elapsed();
                if waited < PURE_SPIN {
                    std::hint::spin_loop();
                } else if waited < SPIN {
                    thread::yield_now();
                } else {
                    park();
                }
            }
            #[cfg(target_arch = "wasm32")]
            {
                if self.looks < self.limit {
                    self.looks += 1;
                    std::hint::spin_loop();
                } else {
                    park();
                }
            }
        }
    }

    /// The job slot's states.
    const IDLE: u8 = 0;
    const POSTED: u8 = 1;
    const RUNNING: u8 = 2;
    const DONE: u8 = 3;

    /// A job for the worker: the erased closure to call and the thread to wake after it.
    struct Job {
        call: *mut (dyn FnMut() + Send),
        caller: Thread,
    }

    /// What the caller and the worker share. The caller writes the job while the state is
    /// IDLE and posts it; whoever moves POSTED on first owns it: the worker (to RUNNING,
    /// then DONE) or the caller taking it back (to IDLE) when the worker has not started
    /// it by the time the caller's own half is done, as on a machine busy with other work.
    pub(super) struct Shared {
        job: UnsafeCell<Option<Job>>,
        state: AtomicU8,
        panic: UnsafeCell<Option<Box<dyn std::any::Any + Send>>>,
        stop: AtomicBool,
    }

    // SAFETY: the slots behind UnsafeCell are handed over by `state` (Release/Acquire
    // compare-exchanges), so one thread at a time touches them (see `Shared`).
    unsafe impl Sync for Shared {}
    // SAFETY: as above; the raw closure pointer is only called while its owner waits.
    unsafe impl Send for Shared {}

    impl Shared {
        pub(super) const fn new() -> Shared {
            Shared {
                job: UnsafeCell::new(None),
                state: AtomicU8::new(IDLE),
                panic: UnsafeCell::new(None),
                stop: AtomicBool::new(false),
            }
        }
    }

    /// Runs `here` on this thread and `there` on `worker`, which serves `shared`
    /// ([`serve`]); `down` gives the worker's panic message if it can no longer finish a job
    /// it started (a wasm helper that panicked: wasm aborts, so the caller then panics with
    /// that message rather than wait forever). Also says whether the caller took `there`
    /// back and ran it itself.
    pub(super) fn join_on<A, B: Send>(
        shared: &Shared,
        worker: &Thread,
        down: impl Fn() -> Option<String>,
        here: impl FnOnce() -> A,
        there: impl FnOnce() -> B + Send,
    ) -> ((A, B), bool) {
        let mut there = Some(there);
        let mut result: Option<B> = None;
        let mut call = || result = Some((there.take().expect("called once"))());
        let call: &mut (dyn FnMut() + Send) = &mut call;
        // SAFETY: the closure borrows this frame; the pointer is used only until the
        // job is DONE or taken back, and `Claim` below makes sure of one of the two
        // before this frame is left, by return or by unwinding.
        let call: *mut (dyn FnMut() + Send + 'static) = unsafe { std::mem::transmute(call) };
        // SAFETY: the state is IDLE, so the worker does not read the slot.
        unsafe {
            *shared.job.get() = Some(Job {
                call,
                caller: thread::current(),
            })
        };
        shared.state.store(POSTED, Ordering::Release);
        worker.unpark();
        let claim = Claim {
            shared,
            down: &down,
        };
        let a = here();
        let taken_back = claim.take_back();
        if taken_back {
            // The worker had not started it: run it here.
            // SAFETY: taken back (POSTED → IDLE), so the worker never reads it.
            let job = unsafe { (*shared.job.get()).take() }.expect("the job");
            // SAFETY: the closure lives in this frame.
            unsafe { (*job.call)() };
        }
        drop(claim);
        // SAFETY: the job is finished and the state IDLE: the worker is waiting.
        if let Some(payload) = unsafe { (*shared.panic.get()).take() } {
            resume_unwind(payload);
        }
        ((a, result.expect("the job ran")), taken_back)
    }

    /// The caller's hold on a posted job: on drop (return or unwinding) it waits until
    /// the job is DONE or takes it back, and leaves the state IDLE.
    struct Claim<'a> {
        shared: &'a Shared,
        down: &'a dyn Fn() -> Option<String>,
    }

    impl Claim<'_> {
        /// Takes the job back if the worker has not started it (POSTED → IDLE).
        fn take_back(&self) -> bool {
            self.shared
                .state
                .compare_exchange(POSTED, IDLE, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
        }
    }

    impl Drop for Claim<'_> {
        fn drop(&mut self) {
            if self.take_back() {
                // SAFETY: taken back, so the worker never reads the slot.
                unsafe { (*self.shared.job.get()).take() };
                return;
            }
            let mut wait = Wait::for_caller();
            loop {
                match self.shared.state.load(Ordering::Acquire) {
                    DONE => break,
                    IDLE => return,
                    _ => match (self.down)() {
                        Some(message) => {
                            panic!(
                                "the second thread stopped in the middle of an update: {message}"
                            )
                        }
                        None => wait.pause(|| thread::park_timeout(Duration::from_millis(1))),
                    },
                }
            }
            self.shared.state.store(IDLE, Ordering::Release);
        }
    }

    /// The worker's loop: wait for a posted job (spin, then park), claim it, run it,
    /// report it done; until asked to stop.
    pub(super) fn serve(shared: &Shared) {
        loop {
            let mut wait = Wait::new();
            loop {
                if shared.state.load(Ordering::Acquire) == POSTED
                    && shared
                        .state
                        .compare_exchange(POSTED, RUNNING, Ordering::Acquire, Ordering::Relaxed)
                        .is_ok()
                {
                    break;
                }
                if shared.stop.load(Ordering::Acquire) {
                    return;
                }
                wait.pause(thread::park);
            }
            // SAFETY: claimed (POSTED → RUNNING, Acquire): the caller wrote the job and
            // waits for DONE.
            let job = unsafe { (*shared.job.get()).take() }.expect("a posted job");
            // SAFETY: the closure lives until the caller sees DONE.
            let outcome = catch_unwind(AssertUnwindSafe(|| unsafe { (*job.call)() }));
            if let Err(payload) = outcome {
                // SAFETY: the caller reads the panic slot only after DONE.
                unsafe { *shared.panic.get() = Some(payload) };
            }
            shared.state.store(DONE, Ordering::Release);
            job.caller.unpark();
        }
    }

    /// A spawned worker thread serving its own slot.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) struct Worker {
        shared: std::sync::Arc<Shared>,
        thread: Option<thread::JoinHandle<()>>,
    }

    #[cfg(not(target_arch = "wasm32"))]
    impl Worker {
        pub(super) fn start() -> Worker {
            let shared = std::sync::Arc::new(Shared::new());
            let for_worker = std::sync::Arc::clone(&shared);
            let thread = thread::Builder::new()
                .name("boltzlab-pair".into())
                .spawn(move || serve(&for_worker))
                .expect("a worker thread");
            Worker {
                shared,
                thread: Some(thread),
            }
        }

        pub(super) fn join<A, B: Send>(
            &mut self,
            here: impl FnOnce() -> A,
            there: impl FnOnce() -> B + Send,
        ) -> (A, B) {
            let worker = self.thread.as_ref().expect("running").thread().clone();
            join_on(&self.shared, &worker, || None, here, there).0
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    impl Drop for Worker {
        fn drop(&mut self) {
            self.shared.stop.store(true, Ordering::Release);
            if let Some(t) = self.thread.take() {
                t.thread().unpark();
                let _ = t.join();
            }
        }
    }
}

/// The wasm build with atomics: one helper thread per instance, started by the page (a Web
/// Worker on the same module and memory, `www/machine/pair_worker.js`), serving every pair.
#[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
pub mod wasm_helper {
    use super::threaded::{Shared, join_on, serve as serve_jobs};
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::thread::{self, Thread};

    /// The one job slot of the instance.
    static SHARED: Shared = Shared::new();
    /// The helper's thread, once registered.
    static HELPER: OnceLock<Thread> = OnceLock::new();
    /// Whether a join is under way (a second one, nested or not, runs in turn).
    static BUSY: AtomicBool = AtomicBool::new(false);
    /// The helper's panic message, once it panicked (it cannot finish a job: wasm aborts on
    /// panic).
    static DOWN: OnceLock<String> = OnceLock::new();
    /// Armed by [`fault_for_tests`]: the helper panics at the next half it runs.
    static FAULT: AtomicBool = AtomicBool::new(false);
    /// Joins whose second half the helper ran, and those the caller took back.
    static HELPED: AtomicU64 = AtomicU64::new(0);
    static TAKEN_BACK: AtomicU64 = AtomicU64::new(0);

    /// How many joins' second halves the helper ran, and how many the caller took back
    /// because the helper had not started them when its own half was done (a diagnostic:
    /// `benches/mnist_cores.mjs` reports it).
    pub fn counts() -> (u64, u64) {
        (
            HELPED.load(Ordering::Relaxed),
            TAKEN_BACK.load(Ordering::Relaxed),
        )
    }

    /// Registers the calling thread as the instance's helper; false if one already is.
    pub fn register() -> bool {
        HELPER.set(thread::current()).is_ok()
    }

    /// Serves joins on the helper's thread, never returning (the page ends it by ending the
    /// worker). Call [`register`] first, on the same thread.
    pub fn serve() {
        serve_jobs(&SHARED)
    }

    /// Whether a helper is registered and has not panicked.
    pub fn registered() -> bool {
        HELPER.get().is_some() && DOWN.get().is_none()
    }

    /// Notes a panic on the current thread (the panic hook calls this with its message): if
    /// it is the helper's, the caller waiting on it stops waiting and panics with it.
    pub fn note_panic(message: &str) {
        if HELPER
            .get()
            .is_some_and(|h| h.id() == thread::current().id())
        {
            let _ = DOWN.set(message.to_owned());
        }
    }

    /// The helper's panic message once it is down.
    fn down() -> Option<String> {
        DOWN.get().cloned()
    }

    /// For tests: the helper panics at the next half it runs (a half the caller takes back
    /// runs as usual), as a bug in the engine would, so the page's fault report is tested on
    /// this path too.
    pub fn fault_for_tests() {
        FAULT.store(true, Ordering::Release);
    }

    /// Clears BUSY when a join ends, by return or by unwinding.
    struct Busy;

    impl Drop for Busy {
        fn drop(&mut self) {
            BUSY.store(false, Ordering::Release);
        }
    }

    /// [`super::ThreadPair::join`] in this build: on the helper when one is registered and
    /// free, else in turn on this thread.
    pub(super) fn join<A, B: Send>(
        here: impl FnOnce() -> A,
        there: impl FnOnce() -> B + Send,
    ) -> (A, B) {
        match HELPER.get() {
            Some(helper)
                if DOWN.get().is_none()
                    && BUSY
                        .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                        .is_ok() =>
            {
                let _busy = Busy;
                let helper_id = helper.id();
                let there = move || {
                    if thread::current().id() == helper_id && FAULT.swap(false, Ordering::AcqRel) {
                        panic!("deliberate panic for tests on the second thread");
                    }
                    there()
                };
                let (both, taken_back) = join_on(&SHARED, helper, down, here, there);
                if taken_back { &TAKEN_BACK } else { &HELPED }.fetch_add(1, Ordering::Relaxed);
                both
            }
            _ => {
                let a = here();
                (a, there())
            }
        }
    }
}
