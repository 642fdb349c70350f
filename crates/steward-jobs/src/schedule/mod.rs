//! Schedules and their next fire time (to be written).
