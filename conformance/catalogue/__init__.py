"""The requirement catalogue (the spine): every requirement, its basis, the profile keys it rests
on and the stages that judge it. How outcomes fold into a report is ``conformance.verdict``.
"""
