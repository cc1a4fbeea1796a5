"""The requirement catalogue (the spine) and how test outcomes fold into a report's requirement
verdicts.
"""
