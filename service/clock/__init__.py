"""clock: deadlines, reminders, quiet hours, vacations and digests as rows claimed by `tick`, and the
scheduler that runs the tick (in-process or as a worker). The handlers that act on a due row are
injected (play/ provides them); imports store/ only."""
