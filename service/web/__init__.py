"""web: the Flask side. Blueprints (`routes`: pages, move links, seat settings; `devmail`: the dev
mailbox), forms, error pages and rate limits. Parses input and calls one play/ function per request;
pages are rendered from templates/."""
