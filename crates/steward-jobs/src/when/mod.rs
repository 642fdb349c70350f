//! Time phrases resolved in the owner's time zone (to be written).
