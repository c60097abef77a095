"""gunicorn's settings for this service, read from the working directory (`gunicorn -w 2
'service:create_app()'` in the checkout): its logs mask seat and spectator tokens
(service/web/gunicorn_log.py)."""

logger_class = "service.web.gunicorn_log.RedactingLogger"
