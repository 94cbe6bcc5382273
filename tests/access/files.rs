//! File modes in the data folder.
