"""HTTP handlers: thin request handlers over the services, the parameter tables, the error shapes
and the application wiring."""
