//! Answering: queuing a response and its access-log line, closing.

use super::*;

/// What every response to one request needs: the request id, the method and path (for the
/// access log), when its head arrived, and whether the connection closes after it.
#[derive(Debug, Clone)]
pub(super) struct RequestInfo {
    pub(super) id: String,
    pub(super) method: String,
    pub(super) path: String,
    pub(super) started: Instant,
    pub(super) close: bool,
}

/// The extra access-log fields of a job's response.
#[derive(Debug, Default)]
pub(super) struct JobLog {
    pub(super) pages_fetched: u32,
    pub(super) pages_too_costly: u32,
    pub(super) payer: Option<String>,
    pub(super) transaction: Option<String>,
    /// Why the request failed, for the access log (see `JobCore::cause`).
    pub(super) cause: Option<String>,
}

impl Exchange {
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
