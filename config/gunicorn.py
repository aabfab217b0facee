"""gunicorn settings shared by `make run` and `make serve` (scripts/serve.sh adds the address,
worker counts, timeout and logs on the command line)."""

# Threads per process: a slow upload or report holds a thread, not a process.
worker_class = "gthread"
# In-flight requests finish before the scripts' 10 s stop deadline.
graceful_timeout = 8
keepalive = 5
# Connections waiting for a thread (50 concurrent uploads queue here, not reset).
backlog = 2048
# Request line and header limits (gunicorn's defaults, stated so they are not lost). The body
# has no limit in gunicorn: core.uploads refuses one larger than MAX_REQUEST_BYTES.
limit_request_line = 4094
limit_request_fields = 100
limit_request_field_size = 8190
