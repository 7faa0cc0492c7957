//! Routing: (method, path) → [`Route`], with 404 for unknown paths and 405 (+ `Allow`) for a
//! known path with the wrong method (docs/contract.md).

/// What a request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// `POST /api/v1/extract-contact` (paid).
    ExtractContact,
    /// `GET /api/health` and `GET /api/healthz`.
    Health,
    /// `GET /api/ready`.
    Ready,
    /// `GET /.well-known/mcp.json`.
    McpDiscovery,
    /// `GET /openapi.json`.
    OpenApi,
    /// `OPTIONS` on a known path (CORS preflight).
    Preflight,
    /// `GET /.well-known/x402.json`.
    X402Discovery,
    /// `GET /.well-known/x402` (the x402 discovery format).
    X402Resources,
}

/// Why a request has no route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RouteError {
    /// Unknown path: 404.
    NotFound,
    /// Known path, wrong method: 405 with this `Allow` value.
    MethodNotAllowed(&'static str),
}

/// Routes a request. Methods are case-sensitive (RFC 9110 §9.1) and only the listed ones are
/// answered. `HEAD` on a `GET` route routes as the `GET` (RFC 9110 §9.3.2; the exchange sends
/// its head without the body); the paid route is `POST` only.
pub fn route(method: &str, path: &str) -> Result<Route, RouteError> {
    let route = path_route(path).ok_or(RouteError::NotFound)?;
    let allowed = match (route, method) {
        (_, "OPTIONS") => return Ok(Route::Preflight),
        (Route::ExtractContact, method) => method == "POST",
        (_, method) => method == "GET" || method == "HEAD",
    };
    if allowed {
        Ok(route)
    } else if route == Route::ExtractContact {
        Err(RouteError::MethodNotAllowed("POST, OPTIONS"))
    } else {
        Err(RouteError::MethodNotAllowed("GET, HEAD, OPTIONS"))
    }
}

/// The route a path names, whatever the method (`None`: not one of ours).
pub fn path_route(path: &str) -> Option<Route> {
    Some(match path {
        "/api/v1/extract-contact" => Route::ExtractContact,
        "/api/health" | "/api/healthz" => Route::Health,
        "/api/ready" => Route::Ready,
        "/openapi.json" => Route::OpenApi,
        "/.well-known/x402.json" => Route::X402Discovery,
        "/.well-known/x402" => Route::X402Resources,
        "/.well-known/mcp.json" => Route::McpDiscovery,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_and_errors() {
        assert_eq!(
            route("POST", "/api/v1/extract-contact"),
            Ok(Route::ExtractContact)
        );
        assert_eq!(route("GET", "/api/healthz"), Ok(Route::Health));
        assert_eq!(route("GET", "/api/health"), Ok(Route::Health));
        assert_eq!(route("HEAD", "/api/health"), Ok(Route::Health));
        assert_eq!(route("HEAD", "/.well-known/x402"), Ok(Route::X402Resources));
        assert_eq!(
            route("HEAD", "/api/v1/extract-contact"),
            Err(RouteError::MethodNotAllowed("POST, OPTIONS"))
        );
        assert_eq!(
            route("head", "/api/health"),
            Err(RouteError::MethodNotAllowed("GET, HEAD, OPTIONS"))
        );
        assert_eq!(route("GET", "/api/ready"), Ok(Route::Ready));
        assert_eq!(route("GET", "/openapi.json"), Ok(Route::OpenApi));
        assert_eq!(
            route("GET", "/.well-known/x402.json"),
            Ok(Route::X402Discovery)
        );
        assert_eq!(
            route("GET", "/.well-known/mcp.json"),
            Ok(Route::McpDiscovery)
        );
        assert_eq!(
            route("OPTIONS", "/api/v1/extract-contact"),
            Ok(Route::Preflight)
        );
        assert_eq!(
            route("GET", "/api/v1/extract-contact"),
            Err(RouteError::MethodNotAllowed("POST, OPTIONS"))
        );
        assert_eq!(
            route("POST", "/api/health"),
            Err(RouteError::MethodNotAllowed("GET, HEAD, OPTIONS"))
        );
        assert_eq!(
            route("get", "/api/health"),
            Err(RouteError::MethodNotAllowed("GET, HEAD, OPTIONS"))
        );
        for path in [
            "/",
            "/api/v1/extract-contact/",
            "/API/HEALTH",
            "/api/v2/extract-contact",
            "/openapi.yaml",
        ] {
            assert_eq!(route("GET", path), Err(RouteError::NotFound), "{path}");
        }
    }
}
