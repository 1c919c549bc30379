//! A view's line to the worker: a [`Call`] sends requests of one [`Request`] type and
//! keeps what the newest one answered (latest wins, written once here). It belongs
//! to whoever created it: one created in `App` outlives its view; one created in a
//! view is dropped with it, and answers that arrive after that are ignored.

use leptos::prelude::*;

use crate::client::{Client, Failure, Progress, Reply, Request};

/// How a [`Call`] treats a request sent while an older one is in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Sent at once; only the newest request's messages are kept, and a
    /// [`Request::CANCELLABLE`] one in flight is cancelled in the worker.
    Latest,
    /// Waits until the one in flight finishes, replacing any request that waited
    /// before it (the worker computes synchronously, so a dragged slider must not
    /// queue a backlog there); only the newest request's messages are kept.
    Queue,
    /// Sent at once; every request's messages are kept (downloads).
    Every,
}

struct State<R> {
    /// The newest request sent.
    latest: Option<u64>,
    /// When it was sent (`performance.now()`).
    sent: f64,
    /// The request waiting behind the one in flight ([`Mode::Queue`]).
    queued: Option<R>,
}

/// What handles the messages a [`Call`] keeps (instead of its signals).
type Sink<A> = std::rc::Rc<dyn Fn(Reply<A>)>;

/// Requests of type `R` and the newest one's answer, failure and progress.
pub struct Call<R: Request> {
    pub answer: RwSignal<Option<R::Answer>>,
    pub error: RwSignal<Option<Failure>>,
    pub progress: RwSignal<Option<Progress>>,
    /// Whether the newest request is still in flight.
    pub pending: RwSignal<bool>,
    /// Milliseconds from sending the newest request to its answer (page clock).
    pub elapsed: RwSignal<Option<f64>>,
    /// The same for the first part of an answer that comes in parts.
    pub first: RwSignal<Option<f64>>,
    state: StoredValue<State<R>, LocalStorage>,
    sink: StoredValue<Option<Sink<R::Answer>>, LocalStorage>,
    client: Client,
    mode: Mode,
}

impl<R: Request> Clone for Call<R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R: Request> Copy for Call<R> {}

fn now() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}

impl<R: Request> Call<R> {
    /// A call whose newest answer, failure and progress are kept in its signals.
    pub fn new(client: Client, mode: Mode) -> Call<R> {
        Call {
            answer: RwSignal::new(None),
            error: RwSignal::new(None),
            progress: RwSignal::new(None),
            pending: RwSignal::new(false),
            elapsed: RwSignal::new(None),
            first: RwSignal::new(None),
            state: StoredValue::new_local(State {
                latest: None,
                sent: 0.0,
                queued: None,
            }),
            sink: StoredValue::new_local(None),
            client,
            mode,
        }
    }

    /// A call whose kept messages go to `sink` (its signals then hold only
    /// `pending`, `elapsed` and `first`).
    pub fn handled(
        client: Client,
        mode: Mode,
        sink: impl Fn(Reply<R::Answer>) + 'static,
    ) -> Call<R> {
        let call = Call::new(client, mode);
        call.sink.set_value(Some(std::rc::Rc::new(sink)));
        call
    }

    /// This call's answers kept in `signal` (a signal of the page's store).
    pub fn answer_into(mut self, signal: RwSignal<Option<R::Answer>>) -> Call<R> {
        self.answer = signal;
        self
    }

    /// Sends `request` (see [`Mode`]).
    pub fn send(self, request: R) {
        let Some(in_flight) = self
            .state
            .try_with_value(|s| s.latest.filter(|_| self.pending.get_untracked()))
        else {
            return;
        };
        match (self.mode, in_flight) {
            (Mode::Queue, Some(_)) => {
                self.state.update_value(|s| s.queued = Some(request));
                return;
            }
            (Mode::Latest, Some(old)) if R::CANCELLABLE => self.client.cancel(old),
            _ => {}
        }
        self.pending.set(true);
        self.progress.set(None);
        let sent = now();
        // the id is known once asked; messages cannot arrive before this task ends
        let id = self
            .client
            .ask(request, move |id, reply| self.reply(id, reply));
        self.state.update_value(|s| {
            s.latest = Some(id);
            s.sent = sent;
        });
    }

    /// Sends `make()` now and whenever a signal it reads changes.
    pub fn auto(self, make: impl Fn() -> R + 'static) -> Call<R> {
        Effect::new(move |_| self.send(make()));
        self
    }

    /// The error line and progress bar of this call.
    pub fn status(self, label: &'static str) -> impl IntoView {
        view! {
            {move || self.error.get().map(|e| view! { <p class="lab-error" role="alert">{e.message}</p> })}
            // the bar floats over the results it is about to replace (style/app.css):
            // nothing below it moves, so a click in flight still lands where aimed
            <div class="lab-progress-slot">
                {move || self.progress.get().map(|p| view! {
                    <p class="lab-progress">
                        <label>{label} " "
                            <progress max=p.total.to_string() value=p.done.to_string()>{format!("{}/{}", p.done, p.total)}</progress>
                        </label>
                        " " {format!("{} of {}", p.done, p.total)}
                    </p>
                })}
            </div>
        }
    }

    /// Asks the worker to stop the newest request, if it is in flight (it answers
    /// `Cancelled`).
    pub fn cancel(self) {
        if let Some(Some(id)) = self.state.try_with_value(|s| s.latest) {
            if self.pending.get_untracked() {
                self.client.cancel(id);
            }
        }
    }

    fn reply(self, id: u64, reply: Reply<R::Answer>) {
        // a view switched away has disposed of this call: drop the message
        let Some((latest, sent)) = self.state.try_with_value(|s| (s.latest, s.sent)) else {
            return;
        };
        let newest = latest == Some(id);
        if !newest && self.mode != Mode::Every {
            return;
        }
        if reply.is_last() && newest {
            self.pending.set(false);
            let next = self.state.try_update_value(|s| s.queued.take()).flatten();
            if let Some(next) = next {
                self.send(next);
                return;
            }
        }
        match &reply {
            Reply::Part(_) => self.first.set(Some(now() - sent)),
            Reply::Done(_) if newest => self.elapsed.set(Some(now() - sent)),
            _ => {}
        }
        if let Some(sink) = self.sink.try_get_value().flatten() {
            sink(reply);
            return;
        }
        match reply {
            Reply::Progress(p) => self.progress.set(Some(p)),
            Reply::Part(answer) => {
                self.error.set(None);
                self.answer.set(Some(answer));
            }
            Reply::Done(answer) => {
                self.progress.set(None);
                self.error.set(None);
                self.answer.set(Some(answer));
            }
            Reply::Failed(failure) => {
                self.progress.set(None);
                self.error.set(Some(failure));
            }
            Reply::Cancelled => self.progress.set(None),
        }
    }
}
