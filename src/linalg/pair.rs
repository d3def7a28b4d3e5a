//! Two threads for one piece of work: the caller's and one persistent worker, so that an
//! update can split its products and elementwise loops in two halves without spawning a
//! thread each time.
//!
//! [`ThreadPair::join`] runs `here` on the calling thread and `there` on the worker and
//! returns when both are done, like `rayon::join`, but always on the same second thread,
//! which waits for work by spinning briefly (work comes every few hundred microseconds
//! during an update) and then parking. The worker is started at the first join and
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
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::thread::{self, JoinHandle, Thread};
    use std::time::{Duration, Instant};

    /// How long the worker spins for the next job before it parks: longer than the gaps
    /// between the halves of one update, short enough not to hold a core between updates.
    const SPIN: Duration = Duration::from_micros(200);

    /// A job for the worker: the erased closure to call and the thread to wake after it.
    struct Job {
        call: *mut (dyn FnMut() + Send),
        caller: Thread,
    }

    /// What the caller and the worker share. `posted` counts jobs handed over, `done` jobs
    /// finished; the job slot is written only while posted == done (the worker is idle)
    /// and read only by the worker after it saw posted move on.
    struct Shared {
        job: UnsafeCell<Option<Job>>,
        posted: AtomicU64,
        done: AtomicU64,
        panic: UnsafeCell<Option<Box<dyn std::any::Any + Send>>>,
        stop: AtomicBool,
    }

    // SAFETY: the slots behind UnsafeCell are handed over by the posted/done counters
    // (Release/Acquire), so only one thread touches them at a time (see `Shared`).
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
                posted: AtomicU64::new(0),
                done: AtomicU64::new(0),
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
            // worker reports the job done, and `Wait` below waits for that before this
            // frame is left, by return or by unwinding.
            let call: *mut (dyn FnMut() + Send + 'static) = unsafe { std::mem::transmute(call) };
            let number = self.shared.posted.load(Ordering::Relaxed) + 1;
            // SAFETY: the worker is idle (done == posted), so it does not read the slot.
            unsafe {
                *self.shared.job.get() = Some(Job {
                    call,
                    caller: thread::current(),
                })
            };
            self.shared.posted.store(number, Ordering::Release);
            if let Some(t) = &self.thread {
                t.thread().unpark();
            }
            let wait = Wait {
                shared: &self.shared,
                number,
            };
            let a = here();
            drop(wait);
            // SAFETY: the worker finished (done == number, Acquire) and is idle.
            if let Some(payload) = unsafe { (*self.shared.panic.get()).take() } {
                resume_unwind(payload);
            }
            (a, result.expect("the worker ran the job"))
        }
    }

    /// Waits (spinning, then parking) until the worker finished job `number`; on drop, so
    /// that a panic on the caller's side still waits before the borrowed frame goes.
    struct Wait<'a> {
        shared: &'a Shared,
        number: u64,
    }

    impl Drop for Wait<'_> {
        fn drop(&mut self) {
            let start = Instant::now();
            while self.shared.done.load(Ordering::Acquire) != self.number {
                if start.elapsed() < SPIN {
                    std::hint::spin_loop();
                } else {
                    thread::park_timeout(Duration::from_millis(1));
                }
            }
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

    /// The worker's loop: wait for the next job (spin, then park), run it, report it done.
    fn serve(shared: &Shared) {
        let mut seen = 0u64;
        loop {
            let start = Instant::now();
            loop {
                if shared.posted.load(Ordering::Acquire) != seen {
                    break;
                }
                if shared.stop.load(Ordering::Acquire) {
                    return;
                }
                if start.elapsed() < SPIN {
                    std::hint::spin_loop();
                } else {
                    thread::park();
                }
            }
            seen += 1;
            // SAFETY: posted moved on (Acquire): the caller wrote the job and waits.
            let job = unsafe { (*shared.job.get()).take() }.expect("a posted job");
            // SAFETY: the closure lives until the caller sees done == seen.
            let outcome = catch_unwind(AssertUnwindSafe(|| unsafe { (*job.call)() }));
            if let Err(payload) = outcome {
                // SAFETY: the caller reads the panic slot only after done == seen.
                unsafe { *shared.panic.get() = Some(payload) };
            }
            shared.done.store(seen, Ordering::Release);
            job.caller.unpark();
        }
    }
}
