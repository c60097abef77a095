"""store: what the service keeps. The database engine and transactions (`db`), the tables as SQLModel
models (`models`, `clock_models`, `reply_models`, their shared naming convention `naming`) and the
seat secrets as they are stored (`tokens`: random tokens, their hashes, HMACs). Imports only the
engine and third-party libraries; everything else in service/ may import it."""
