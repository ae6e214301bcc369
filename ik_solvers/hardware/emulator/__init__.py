"""An emulated servo bus on a pseudo-terminal: the device side of Dynamixel Protocol 2.0 and Feetech STS.

Written from the protocol documents, not from the SDKs, so that the bridge's SDK framing is checked
against an independent implementation.
"""
