//! Answering: queuing a response and its access-log line, ending a job, closing.

use super::*;

impl Exchange {
    pub(super) fn end_job_with_error(
        &mut self,
        server: &Server,
        job: Box<Job>,
        failure: &Failure,
        message: &str,
        now: Instant,
    ) {
        self.end_job_with_error_and(server, job, failure, message, now, &[]);
    }

    /// As [`Exchange::end_job_with_error`], with `extra` header fields (e.g. `Retry-After`).
    pub(super) fn end_job_with_error_and(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        failure: &Failure,
        message: &str,
        now: Instant,
        extra: &[(&'static str, String)],
    ) {
        self.close_fetches(&mut job);
        let (status, code) = reply_for(failure);
        let error = ApiError::new(code, message, job.request.id.clone());
        if job.operator {
            self.unpaid_outcome = Some(Err(error.clone()));
        }
        let mut response = json_response(status, &error);
        for (name, value) in extra {
            response = response.with_header(name, value.clone());
        }
        self.finish_job(server, job, response, Some(code), None, now);
    }

    pub(super) fn end_job_with_402(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        reason: &str,
        settle: Option<SettleResponse>,
        now: Instant,
    ) {
        self.close_fetches(&mut job);
        let response = match (settle, &job.paid) {
            // A refused settlement: the result is withheld; PAYMENT-RESPONSE says why.
            (Some(settled), _) => Response::json(402, b"{}".to_vec())
                .with_header("PAYMENT-RESPONSE", codec::encode(&settled))
                .with_header("Cache-Control", "no-store"),
            (None, Some(paid)) => {
                payment_required_response(&paid.terms, reason, server.payment_extensions())
            }
            // Only paid jobs reach the facilitator; an unpaid one cannot get here.
            (None, None) => Response::json(402, b"{}".to_vec()),
        };
        self.finish_job(server, job, response, None, None, now);
    }

    pub(super) fn finish_job(
        &mut self,
        server: &Server,
        job: Box<Job>,
        response: Response,
        code: Option<ErrorCode>,
        transaction: Option<String>,
        now: Instant,
    ) {
        self.state = State::Idle {
            deadline: now + HEAD_TIMEOUT,
        };
        let log = JobLog {
            pages_fetched: job.pages_fetched,
            pages_too_costly: job.pages_too_costly,
            payer: job.paid.as_ref().map(|paid| paid.payer.clone()),
            transaction,
            cause: job.cause.clone(),
        };
        if job.operator || self.client_gone {
            // An operator's crawl has no client; a client that left gets nothing sent (a paid
            // result is in the payment store for its retry). Log it and end.
            self.log(&job.request, response.status, code, log, now);
            self.close();
            return;
        }
        self.send(&response.prepare(), &job.request, now, code, log);
        // The job ends here: its slot is free before a pipelined request is read.
        drop(job);
        if !self.is_finished() {
            self.advance_inbound(server, now);
        }
    }

    pub(super) fn payment_required(
        &mut self,
        request: &RequestInfo,
        terms: &PaymentTerms,
        reason: &str,
        now: Instant,
    ) {
        let response = payment_required_response(terms, reason, self.server.payment_extensions());
        self.send_plain(&response.prepare(), request, now);
    }

    pub(super) fn respond_error(
        &mut self,
        request: &RequestInfo,
        failure: &Failure,
        message: &str,
        now: Instant,
    ) {
        self.respond_error_with(request, failure, message, now, &[]);
    }

    /// An `ApiError` response for `failure`, with `extra` headers (`Retry-After`, `Allow`).
    pub(super) fn respond_error_with(
        &mut self,
        request: &RequestInfo,
        failure: &Failure,
        message: &str,
        now: Instant,
        extra: &[(&'static str, String)],
    ) {
        let (status, code) = reply_for(failure);
        if matches!(failure, Failure::Overloaded) {
            self.shed = true;
        }
        let mut response = json_response(status, &ApiError::new(code, message, &request.id));
        for (name, value) in extra {
            response = response.with_header(name, value.clone());
        }
        // After a framing error the stream cannot be trusted: close it.
        let framing = matches!(
            failure,
            Failure::HeadTooLarge
                | Failure::BodyTooLarge
                | Failure::MalformedRequest
                | Failure::UnsupportedTransferCoding
        );
        let request = RequestInfo {
            close: request.close || framing,
            ..request.clone()
        };
        self.send(
            &response.prepare(),
            &request,
            now,
            Some(code),
            JobLog::default(),
        );
    }

    /// A response that is neither an error nor paid (free routes, 402s).
    pub(super) fn send_plain(
        &mut self,
        response: &PreparedResponse,
        request: &RequestInfo,
        now: Instant,
    ) {
        self.send(response, request, now, None, JobLog::default());
    }

    /// Queues `response` and its access-log line; closes after it when the request says so.
    pub(super) fn send(
        &mut self,
        response: &PreparedResponse,
        request: &RequestInfo,
        now: Instant,
        error_code: Option<ErrorCode>,
        log: JobLog,
    ) {
        // While the service drains, every answer is the connection's last.
        let close = request.close || self.server.is_draining();
        // A response to HEAD is the GET's status and headers, without content (RFC 9110
        // §9.3.2), whatever its status.
        let bytes = if request.method == "HEAD" {
            response.head_bytes(&request.id, close)
        } else {
            response.to_bytes(&request.id, close)
        };
        self.outputs.push_back(Output::SendToClient(bytes));
        self.log(request, response.status, error_code, log, now);
        if close {
            self.close();
        }
    }

    /// The access-log line of one request.
    pub(super) fn log(
        &mut self,
        request: &RequestInfo,
        status: u16,
        error_code: Option<ErrorCode>,
        log: JobLog,
        now: Instant,
    ) {
        self.outputs.push_back(Output::Event(RequestEvent {
            request_id: request.id.clone(),
            client: self.client,
            method: request.method.clone(),
            path: request.path.clone(),
            status,
            error_code,
            duration_ms: millis(now.saturating_duration_since(request.started)),
            pages_fetched: log.pages_fetched,
            payer: log.payer,
            transaction: log.transaction,
            client_gone: self.client_gone,
            pages_too_costly: log.pages_too_costly,
            payment: self.verdict.take(),
            shed: std::mem::take(&mut self.shed),
            cause: log.cause,
        }));
    }

    pub(super) fn close(&mut self) {
        if !self.is_finished() {
            self.outputs.push_back(Output::CloseClient);
        }
        self.state = State::Closed;
    }
}
