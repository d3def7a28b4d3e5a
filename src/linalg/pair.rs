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
//! stopped when the pair is dropped. In wasm (one thread) both closures run in turn on the
//! caller's thread.
//!
//! Neither closure sees the other's data: what each half computes, and so every bit of the
//! result, does not depend on whether the halves ran in parallel.

/// The caller's thread and one persistent worker thread (started on first use).
#[derive(Default)]
pub struct ThreadPair {
    #[cfg(not(target_arch = "wasm32"))]
    worker: Option<native::Worker>,
}

impl ThreadPair {
    /// A pair whose worker is not started yet.
    pub fn new() -> ThreadPair {
        ThreadPair::default()
    }

    /// Whether the worker thread is running.
    pub fn started(&self) -> bool {
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.worker.is_some()
        }
        #[cfg(target_arch = "wasm32")]
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
                .get_or_insert_with(native::Worker::start)
                .join(here, there)
        }
        #[cfg(target_arch = "wasm32")]
        {
            let a = here();
            (a, there())
        }
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

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::cell::UnsafeCell;
    use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
    use std::thread::{self, JoinHandle, Thread};
    use std::time::{Duration, Instant};

    /// How long a waiting thread (the worker for the next job, the caller for the worker's
    /// half) stays awake before it parks: longer than the gaps between the halves of one
    /// update, short enough not to hold a core between updates.
    const SPIN: Duration = Duration::from_micros(200);

    /// For how much of [`SPIN`] it only spins; after that it yields the core at each look
    /// (so that on a busy machine, where the scheduler shares one slice between the
    /// process's threads, the other half's thread can run).
    const PURE_SPIN: Duration = Duration::from_micros(20);

    /// One look's wait of a thread that started waiting at `start`: spin, then yield, then
    /// park (`park` is the parking to do).
    fn pause(start: Instant, park: impl FnOnce()) {
        let waited = start.elapsed();
        if waited < PURE_SPIN {
            std::hint::spin_loop();
        } else if waited < SPIN {
            thread::yield_now();
        } else {
            park();
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
    struct Shared {
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

    pub(super) struct Worker {
        shared: Arc<Shared>,
        thread: Option<JoinHandle<()>>,
    }

    impl Worker {
        pub(super) fn start() -> Worker {
            let shared = Arc::new(Shared {
                job: UnsafeCell::new(None),
                state: AtomicU8::new(IDLE),
                panic: UnsafeCell::new(None),
                stop: AtomicBool::new(false),
            });
            let for_worker = Arc::clone(&shared);
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
                *self.shared.job.get() = Some(Job {
                    call,
                    caller: thread::current(),
                })
            };
            self.shared.state.store(POSTED, Ordering::Release);
            if let Some(t) = &self.thread {
                t.thread().unpark();
            }
            let claim = Claim {
                shared: &self.shared,
            };
            let a = here();
            if claim.take_back() {
                // The worker had not started it: run it here.
                // SAFETY: taken back (POSTED → IDLE), so the worker never reads it.
                let job = unsafe { (*self.shared.job.get()).take() }.expect("the job");
                // SAFETY: the closure lives in this frame.
                unsafe { (*job.call)() };
            }
            drop(claim);
            // SAFETY: the job is finished and the state IDLE: the worker is waiting.
            if let Some(payload) = unsafe { (*self.shared.panic.get()).take() } {
                resume_unwind(payload);
            }
            (a, result.expect("the job ran"))
        }
    }

    /// The caller's hold on a posted job: on drop (return or unwinding) it waits until
    /// the job is DONE or takes it back, and leaves the state IDLE.
    struct Claim<'a> {
        shared: &'a Shared,
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
            let start = Instant::now();
            loop {
                match self.shared.state.load(Ordering::Acquire) {
                    DONE => break,
                    IDLE => return,
                    _ => pause(start, || thread::park_timeout(Duration::from_millis(1))),
                }
            }
            self.shared.state.store(IDLE, Ordering::Release);
        }
    }

    impl Drop for Worker {
        fn drop(&mut self) {
            self.shared.stop.store(true, Ordering::Release);
            if let Some(t) = self.thread.take() {
                t.thread().unpark();
                let _ = t.join();
            }
        }
    }

    /// The worker's loop: wait for a posted job (spin, then park), claim it, run it,
    /// report it done.
    fn serve(shared: &Shared) {
        loop {
            let start = Instant::now();
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
                pause(start, thread::park);
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
}
