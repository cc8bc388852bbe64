"""The precision domain: dtypes and numerics that behave differently on Ascend."""
